// Documents over real sockets (issue 10, integrity and bounded uploads): a large random file
// uploaded through the API is downloaded byte-identical through the storage's link, ranges
// included; an upload crossing a limit is answered at once and the rest is never read.
import { createHash, randomBytes } from 'node:crypto'
import { request } from 'node:http'
import t from 'tap'
import { basic } from '../helpers/platform.ts'
import { ADMIN, livePlatform } from '../helpers/live-platform.ts'

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

t.test('an upload over the file-size limit is refused at once; the rest of the body is not read', async (t) => {
  const { platform } = await livePlatform(t)
  const companyId = (await platform.catalog.users.findByEmailWithHash(ADMIN.email))!.company_id
  await platform.catalog.files.setLimits({ kind: 'company', companyId }, { file_size_bytes: 1024 * 1024 })
  const total = 512 * 1024 * 1024
  const boundary = 'lintelboundary'
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.bin"\r\n\r\n`)
  const url = new URL('/v2/company/file', platform.address)
  let written = 0
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { authorization: basic(ADMIN), 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + total },
    }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (d) => { body += d }).on('end', () => resolve({ status: res.statusCode!, body }))
    })
    let answered = false
    req.on('response', () => { answered = true })
    req.on('error', (err) => { if (!answered) reject(err) })
    req.write(head)
    const chunk = randomBytes(256 * 1024)
    const pump = () => {
      while (!answered && written < total) {
        written += chunk.length
        if (!req.write(chunk)) return void req.once('drain', pump)
      }
    }
    pump()
  })
  t.equal(answer.status, 413)
  t.match(JSON.parse(answer.body).error, 'at most 1048576 bytes (quota_limits.file_size_bytes)')
  t.ok(written < 16 * 1024 * 1024, `the client could send only ${(written / 1048576).toFixed(1)} MiB of 512 MiB before the answer`)
  t.same(await platform.catalog.files.usage({ kind: 'company', companyId }), { files: 0, space_bytes: 0 })
})
