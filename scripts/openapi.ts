// Writes the OpenAPI document the server serves at /v2/openapi.json to a file (default
// openapi.json), so tools that read files (redocly lint, prism) see exactly what clients get.
// Usage: node --import tsx scripts/openapi.ts [out-file]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { buildApp } from '../api/app.ts'
import { adminEndpoints } from '../api/registry.ts'
import { Catalog } from '../catalog/index.ts'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'

const out = process.argv[2] ?? 'openapi.json'
const dir = mkdtempSync(join(tmpdir(), 'lintel-openapi-'))
const catalog = Catalog.open(':memory:', adminEndpoints)
const store = await openSqliteStore({ dir })
// Every route is documented, so the virtual-datapoint routes need a runner; none runs here.
const vdpRunner = { start: async () => {}, stop: () => {}, isRunning: () => false }
const app = await buildApp({ catalog, store, logger: false, vdpRunner })
const res = await app.inject({ method: 'GET', url: '/v2/openapi.json' })
writeFileSync(out, JSON.stringify(res.json(), null, 2) + '\n')
await app.close()
catalog.close()
await store.close()
rmSync(dir, { recursive: true, force: true })
process.stderr.write(`wrote ${out}\n`)
