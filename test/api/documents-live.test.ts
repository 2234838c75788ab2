// Documents over real sockets (issue 10, integrity and bounded uploads): a large random file
// uploaded through the API is downloaded byte-identical through the storage's link, ranges
// included; an upload crossing a limit is answered at once and the rest is never read; the
// bounds of issue 29 (declared size, rate, uploads per company) over real sockets.
import { createHash, randomBytes } from 'node:crypto'
import { request, type ClientRequest } from 'node:http'
import t from 'tap'
import { basic } from '../helpers/platform.ts'
import { ADMIN, livePlatform } from '../helpers/live-platform.ts'
import { waitFor } from '../helpers/wait.ts'
import type { Documents } from '../../engine/blobs/documents.ts'

const sha = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex')

t.test('a 64 MiB random file: uploaded streamed, downloaded byte-identical, ranges served', async (t) => {
  const { platform, http } = await livePlatform(t)
  t.ok(platform.storageUrl, 'the storage listener runs on its own port')
  const pid = (await http('POST', '/v2/company/project', { name: 'Big' })).body.resource.project.id
  const data = randomBytes(64 * 1024 * 1024)
  const form = new FormData()
  form.append('file', new Blob([data]), 'model.ifc')
  const up = await fetch(`${platform.address}/v2/project/${pid}/file?folder=bim`, { method: 'POST', body: form, headers: { authorization: basic(ADMIN) } })
  t.equal(up.status, 201)
  t.same((await up.json()).resource, { path: 'bim/model.ifc', size_bytes: data.length, sha256: sha(data) })
  const listed = (await http('GET', `/v2/project/${pid}/files`)).body.items[0]
  t.equal(listed.sha256, sha(data), 'the file entry shows the SHA-256')

  const { download_link: link } = (await http('GET', `/v2/project/${pid}/file?path=bim/model.ifc&expiry=5m`)).body
  t.ok(link.startsWith(platform.storageUrl!), 'the link points at the storage listener, not the API')
  const res = await fetch(link)
  t.equal(res.status, 200)
  t.equal(res.headers.get('content-length'), String(data.length))
  t.match(res.headers.get('content-disposition'), "filename*=UTF-8''model.ifc")
  const hash = createHash('sha256')
  for await (const chunk of res.body!) hash.update(chunk)
  t.equal(hash.digest('hex'), sha(data), 'byte-identical download')

  const start = 40 * 1024 * 1024 + 7
  const part = await fetch(link, { headers: { range: `bytes=${start}-${start + 999_999}` } })
  t.equal(part.status, 206)
  t.equal(part.headers.get('content-range'), `bytes ${start}-${start + 999_999}/${data.length}`)
  t.equal(sha(new Uint8Array(await part.arrayBuffer())), sha(data.subarray(start, start + 1_000_000)))
})

/**
 * A raw multipart upload declaring `total` body bytes: `feed` writes them (or some of them).
 * The server may refuse while the client still writes and close the socket: the client then
 * sees EPIPE or ECONNRESET, possibly before it could read the answer. Refusing early is right,
 * so that is an outcome (`status: 'closed'`), not a failure of the test.
 */
function rawUpload(address: string, path: string, total: number, feed: (req: ClientRequest, answered: () => boolean) => void) {
  const boundary = 'lintelboundary'
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.bin"\r\n\r\n`)
  return new Promise<{ status: number | 'closed'; body: string; headers: Record<string, unknown> }>((resolve) => {
    const req = request(new URL(path, address), {
      method: 'POST',
      headers: { authorization: basic(ADMIN), 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + total },
    }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (d) => { body += d }).on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }))
        .on('error', () => resolve({ status: res.statusCode!, body, headers: res.headers }))
    })
    let answered = false
    req.on('response', () => { answered = true })
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (answered) return
      if (err.code === 'EPIPE' || err.code === 'ECONNRESET') resolve({ status: 'closed', body: '', headers: {} })
      else resolve({ status: 'closed', body: String(err), headers: {} })
    })
    req.write(head)
    feed(req, () => answered)
  })
}

t.test('an upload over the file-size limit is refused at once; the rest of the body is not read', async (t) => {
  const { platform } = await livePlatform(t)
  const companyId = (await platform.catalog.users.findByEmailWithHash(ADMIN.email))!.company_id
  await platform.catalog.files.setLimits({ kind: 'company', companyId }, { file_size_bytes: 1024 * 1024 })
  const total = 512 * 1024 * 1024
  let written = 0
  const answer = await rawUpload(platform.address, '/v2/company/file', total, (req, answered) => {
    const chunk = randomBytes(256 * 1024)
    const pump = () => {
      while (!answered() && written < total) {
        written += chunk.length
        if (!req.write(chunk)) return void req.once('drain', pump)
      }
    }
    pump()
  })
  if (answer.status === 'closed') {
    t.pass('the server refused and closed the socket before the client read the answer (EPIPE/ECONNRESET): refusing early is right')
  } else {
    t.equal(answer.status, 413)
    t.match(JSON.parse(answer.body).error, 'at most 1048576 bytes (quota_limits.file_size_bytes)')
  }
  t.ok(written < 16 * 1024 * 1024, `the client could send only ${(written / 1048576).toFixed(1)} MiB of 512 MiB before the answer`)
  t.same(await platform.catalog.files.usage({ kind: 'company', companyId }), { files: 0, space_bytes: 0 })
})

t.test('a body declaring 10 GB is refused before it streams; a trickling one is cut off with 408; uploads per company are capped (issue 29)', async (t) => {
  const { platform } = await livePlatform(t, { LINTEL_UPLOADS_PER_COMPANY: '1', LINTEL_UPLOAD_MIN_RATE_KB: '1024', LINTEL_UPLOAD_RATE_WINDOW_S: '1' })
  const companyId = (await platform.catalog.users.findByEmailWithHash(ADMIN.email))!.company_id
  // The default file-size limit (2 GiB) refuses 10 GB from the Content-Length alone; the client
  // sends 100 bytes of the file (the multipart parser holds back the end of what it got until
  // it knows that is no boundary) and nothing more.
  const huge = await rawUpload(platform.address, '/v2/company/file', 10 * 1024 ** 3, (req) => { req.write(Buffer.alloc(100)) })
  t.equal(huge.status, 413)
  t.match(JSON.parse(huge.body).error, 'accepts files of at most 2147483648 bytes (quota_limits.file_size_bytes)')

  // One upload trickles (100 bytes, then nothing): it holds the company's only upload slot...
  let trickling!: ClientRequest
  const slow = rawUpload(platform.address, '/v2/company/file?folder=slow', 100 * 1024 * 1024, (req) => { trickling = req; req.write(Buffer.alloc(100)) })
  await waitFor(() => documentsOf(platform).gate.usage().running === 1, { what: 'the trickling upload to be admitted' })
  const second = await rawUpload(platform.address, '/v2/company/file?folder=second', 10, (req) => { req.end(Buffer.alloc(10)) })
  t.equal(second.status, 429, 'a second upload of the company at once is refused')
  t.match(JSON.parse(second.body).error, 'at most 1 at once (LINTEL_UPLOADS_PER_COMPANY)')
  t.equal(second.headers['retry-after'], '5')
  // ...until the server cuts it off for its rate.
  const cut = await slow
  trickling.destroy()
  if (cut.status === 'closed') t.pass('closed before the answer could be read')
  else {
    t.equal(cut.status, 408)
    t.match(JSON.parse(cut.body).error, /Upload too slow: 100 bytes arrived in the last 1 s, at least 1048576 bytes per second are needed/)
  }
  t.same(documentsOf(platform).gate.usage(), { running: 0, heldBytes: 0 }, 'its reservation is released')
  t.same(await platform.catalog.files.usage({ kind: 'company', companyId }), { files: 0, space_bytes: 0 }, 'nothing stored')
})

const documentsOf = (p: { documents?: Documents }) => p.documents!
