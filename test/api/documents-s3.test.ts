// The document endpoints on the scaled storage: S3Proxy (scripts/services/s3proxy.sh), links
// presigned by the SDK. The same behaviour as on the embedded storage: walk-through, racing
// uploads, expired links, project deletion.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import t from 'tap'
import { openS3BlobStore } from '../../engine/blobs/s3-store.ts'
import { requireService } from '../helpers/services.ts'
import { until } from '../helpers/live-platform.ts'
import { fileForm } from '../helpers/multipart.ts'
import { addProject, basic, platform, type Platform } from '../helpers/platform.ts'
import { s3Env } from '../helpers/s3.ts'

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
async function send(p: Platform, method: 'POST' | 'PUT', url: string, name: string, data: Buffer) {
  const { payload, headers } = fileForm(name, data)
  const res = await p.app.inject({ method, url, payload, headers: { ...headers, authorization: basic(p.admin) } })
  return { status: res.statusCode, body: res.json() }
}

const { hostname, port } = new URL(s3Env.endpoint)
if (await requireService(t, 'S3Proxy', hostname, Number(port), 'scripts/services/s3proxy.sh start')) {
  t.test('documents on S3', async (t) => {
    // A bucket of this run's own, so runs and other tests never see each other's spaces.
    const blobs = await openS3BlobStore({ ...s3Env, bucket: `lintel-${randomUUID().slice(0, 8)}` })
    t.teardown(() => blobs.close())
    let clock = Date.now()
    const p = await platform(t, { blobs, now: () => clock })
    const project = await addProject(p, p.admin, 'S3')
    const base = `/v2/project/${project.id}`

    const data = randomBytes(11 * 1024 * 1024)
    const up = await send(p, 'POST', `${base}/file?folder=docs`, 'manual.pdf', data)
    t.same(up.body.resource, { path: 'docs/manual.pdf', size_bytes: data.length, sha256: sha(data) })
    const link = (await p.call(p.admin, 'GET', `${base}/file?path=docs/manual.pdf&expiry=10m`)).body
    t.match(link.download_link, new RegExp(`^${s3Env.endpoint}/`), 'presigned on the object storage')
    t.equal(sha(Buffer.from(await (await fetch(link.download_link)).arrayBuffer())), sha(data), 'byte-identical')

    const v2 = randomBytes(1000)
    t.equal((await send(p, 'PUT', `${base}/file?folder=docs`, 'manual.pdf', v2)).status, 201)
    const old = await fetch(link.download_link)
    t.equal(old.status, 404, 'the replaced object is gone')
    await old.arrayBuffer()

    await p.catalog.files.setLimits({ kind: 'project', companyId: p.admin.companyId, projectId: project.id }, { space_bytes: 1000 + 6 * 1024 * 1024 * 1.5 })
    const race = await Promise.all(['a', 'b'].map((n) => send(p, 'POST', `${base}/file`, `${n}.bin`, randomBytes(6 * 1024 * 1024))))
    t.same(race.map((r) => r.status).sort(), [201, 413], 'racing uploads: one wins')
    t.same((await p.call(p.admin, 'GET', `${base}/quota`)).body.files.quota_used, { files: 2, space_bytes: 1000 + 6 * 1024 * 1024 })

    clock -= 2 * 3600_000
    const expired = (await p.call(p.admin, 'GET', `${base}/file?path=docs/manual.pdf&expiry=30m`)).body
    const res = await fetch(expired.download_link)
    t.equal(res.status, 403)
    t.match(await res.text(), /<Error><Code>AccessDenied<\/Code><Message>[^<]*expired/)
    clock = Date.now()

    t.equal((await p.call(p.admin, 'DELETE', `${base}/file?path=docs`)).status, 200)
    t.same((await p.call(p.admin, 'GET', `${base}/files`)).body.meta.total_items, 1)
    t.equal((await p.call(p.admin, 'DELETE', `/v2/project/${project.id}`)).status, 200)
    t.ok(await until(async () => (await blobs.listPrefixes()).length === 0), 'the deleted project\'s objects are removed')
  })
}
