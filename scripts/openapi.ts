// Writes the OpenAPI document the server serves at /v2/openapi.json to a file (default
// openapi.json), so tools that read files (redocly lint, prism) see exactly what clients get.
// Usage: node --import tsx scripts/openapi.ts [out-file]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../api/app.ts'
import { adminEndpoints } from '../api/registry.ts'
import { Catalog } from '../catalog/index.ts'
import { Documents } from '../engine/blobs/documents.ts'
import { openFsBlobStore } from '../engine/blobs/fs-store.ts'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'

const out = process.argv[2] ?? 'openapi.json'
const dir = mkdtempSync(join(tmpdir(), 'lintel-openapi-'))
const catalog = Catalog.open(':memory:', adminEndpoints)
const store = await openSqliteStore({ dir })
// Every route is documented, so the virtual-datapoint routes need a runner; none runs here.
const vdpRunner = { start: async () => {}, stop: () => {}, isRunning: () => false }
// The embedded server serves the documents (file-system store), so their routes are documented too.
const blobs = await openFsBlobStore({ dir: join(dir, 'files'), host: '127.0.0.1', port: 0 })
const documents = new Documents(catalog.files, blobs)
const app = await buildApp({ catalog, store, logger: false, vdpRunner, documents })
const res = await app.inject({ method: 'GET', url: '/v2/openapi.json' })
writeFileSync(out, JSON.stringify(res.json(), null, 2) + '\n')
await app.close()
catalog.close()
await store.close()
await blobs.close()
rmSync(dir, { recursive: true, force: true })
process.stderr.write(`wrote ${out}\n`)
