// Documents throughput (issue 10): a large file uploaded through the API (multipart, streamed
// into the storage) and downloaded through the storage's expiring link, against copying the
// same file on disk (copy + fsync, as durable as an upload: the kernel's copy_file_range
// through copyFile, and a Node read-into-write stream copy as the user-space peer). Prints NDJSON: one line per round
// and a summary with medians, ratios to the disk copy (target >= 0.5) and the server's peak
// resident memory (bounded: it must not grow with the file size).
//   npm run bench:blobs                         1 GiB, 3 rounds, embedded storage (fs)
//   LINTEL_BENCH_BLOB_MB=64 npm run bench:blobs  a quick run
//   LINTEL_BENCH_ROUNDS=1, LINTEL_BENCH_BLOBS=s3 (S3Proxy from scripts/services/s3proxy.sh)
import { createHash, randomBytes } from 'node:crypto'
import { createReadStream, createWriteStream, rmSync } from 'node:fs'
import { copyFile, mkdtemp, open } from 'node:fs/promises'
import { get, request, type IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { api, basicHeader, emit, median, peakRssMb, progress, startServer } from './lib.ts'

const MB = 1024 * 1024
const sizeMb = Number(process.env.LINTEL_BENCH_BLOB_MB ?? 1024)
const rounds = Number(process.env.LINTEL_BENCH_ROUNDS ?? 3)
const mode = process.env.LINTEL_BENCH_BLOBS ?? 'fs'
const size = sizeMb * MB

async function writeRandomFile(path: string): Promise<string> {
  const hash = createHash('sha256')
  const out = createWriteStream(path)
  for (let left = size; left > 0;) {
    const chunk = randomBytes(Math.min(8 * MB, left))
    hash.update(chunk)
    left -= chunk.length
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()))
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())))
  return hash.digest('hex')
}

async function diskCopy(from: string, to: string): Promise<number> {
  const t0 = performance.now()
  await copyFile(from, to)
  const fh = await open(to, 'r+')
  await fh.datasync()
  await fh.close()
  const s = (performance.now() - t0) / 1000
  rmSync(to)
  return s
}

/** The same copy through a Node process (read stream into write stream, then fsync): the
 *  user-space peer of the kernel's copy_file_range that copyFile uses. */
async function streamCopy(from: string, to: string): Promise<number> {
  const t0 = performance.now()
  await pipeline(createReadStream(from, { highWaterMark: MB }), createWriteStream(to, { highWaterMark: MB }))
  const fh = await open(to, 'r+')
  await fh.datasync()
  await fh.close()
  const s = (performance.now() - t0) / 1000
  rmSync(to)
  return s
}

/** POST the file as multipart/form-data, streamed from disk; seconds until the 201. */
function upload(url: string, file: string, name: string): Promise<{ seconds: number; body: any }> {
  const boundary = 'lintelbench'
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`)
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  const t0 = performance.now()
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'POST',
      headers: { authorization: basicHeader, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + size + tail.length },
    }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (d) => { text += d }).on('end', () => {
        if (res.statusCode !== 201) return reject(new Error(`upload: ${res.statusCode} ${text}`))
        resolve({ seconds: (performance.now() - t0) / 1000, body: JSON.parse(text) })
      })
    })
    req.on('error', reject)
    req.write(head)
    const src = createReadStream(file, { highWaterMark: MB })
    src.on('data', (chunk) => { if (!req.write(chunk)) { src.pause(); req.once('drain', () => src.resume()) } })
    src.on('end', () => req.end(tail))
    src.on('error', reject)
  })
}

/** GET the link (node:http, no WHATWG streams): into a file on disk as a client saving it
 *  would, or counted and dropped (the storage's own serving rate, without the client's disk). */
async function download(link: string, to?: string): Promise<number> {
  const t0 = performance.now()
  const res = await new Promise<IncomingMessage>((resolve, reject) => get(link, resolve).on('error', reject))
  if (res.statusCode !== 200) throw new Error(`download: ${res.statusCode}`)
  let got = 0
  if (to) await pipeline(res, createWriteStream(to, { highWaterMark: MB }))
  else for await (const chunk of res) got += (chunk as Buffer).length
  const s = (performance.now() - t0) / 1000
  if (to) rmSync(to)
  else if (got !== size) throw new Error(`download: ${got} bytes of ${size}`)
  return s
}

const dir = await mkdtemp(join(tmpdir(), 'lintel-bench-blobs-'))
const env: Record<string, string> = { LINTEL_BLOBS: mode }
if (mode === 's3') {
  Object.assign(env, {
    LINTEL_S3_ENDPOINT: process.env.LINTEL_S3_ENDPOINT ?? 'http://127.0.0.1:18333', LINTEL_S3_BUCKET: process.env.LINTEL_S3_BUCKET ?? 'lintel',
    LINTEL_S3_ACCESS_KEY: process.env.LINTEL_S3_ACCESS_KEY ?? 'lintel', LINTEL_S3_SECRET_KEY: process.env.LINTEL_S3_SECRET_KEY ?? 'lintel-secret',
  })
}
const server = await startServer(env)
try {
  progress(`writing a ${sizeMb} MiB random file`)
  const file = join(dir, 'source.bin')
  const sha256 = await writeRandomFile(file)
  const pid = (await api(server, 'POST', '/v2/company/project', { name: 'bench-blobs' })).resource.project.id
  const rssBefore = await peakRssMb(server.child.pid!)
  const rows: { copy: number; stream: number; up: number; down: number; toDisk: number }[] = []
  for (let round = 1; round <= rounds; round++) {
    progress(`round ${round}/${rounds}: disk copy`)
    const copy = await diskCopy(file, join(dir, 'copy.bin'))
    const stream = await streamCopy(file, join(dir, 'copy.bin'))
    progress(`round ${round}/${rounds}: upload through the API`)
    const up = await upload(`${server.url}/v2/project/${pid}/file?folder=bench`, file, `r${round}.bin`)
    if (up.body.resource.sha256 !== sha256) throw new Error('the stored SHA-256 differs from the file\'s')
    const { download_link: link } = await api(server, 'GET', `/v2/project/${pid}/file?path=bench/r${round}.bin&expiry=1h`)
    progress(`round ${round}/${rounds}: download through the link`)
    const down = await download(link)
    const toDisk = await download(link, join(dir, 'download.bin'))
    await api(server, 'DELETE', `/v2/project/${pid}/file?path=bench/r${round}.bin`)
    rows.push({ copy, stream, up: up.seconds, down, toDisk })
    emit({ bench: 'blobs', storage: mode, round, size_mib: sizeMb, disk_copy_mib_s: +(sizeMb / copy).toFixed(1), stream_copy_mib_s: +(sizeMb / stream).toFixed(1), api_upload_mib_s: +(sizeMb / up.seconds).toFixed(1), link_download_mib_s: +(sizeMb / down).toFixed(1), link_download_to_disk_mib_s: +(sizeMb / toDisk).toFixed(1) })
  }
  const m = (k: 'copy' | 'stream' | 'up' | 'down' | 'toDisk') => median(rows.map((r) => r[k]))
  const rssAfter = await peakRssMb(server.child.pid!)
  emit({
    bench: 'blobs', storage: mode, summary: true, size_mib: sizeMb, rounds,
    disk_copy_mib_s: +(sizeMb / m('copy')).toFixed(1),
    stream_copy_mib_s: +(sizeMb / m('stream')).toFixed(1),
    api_upload_mib_s: +(sizeMb / m('up')).toFixed(1),
    link_download_mib_s: +(sizeMb / m('down')).toFixed(1),
    link_download_to_disk_mib_s: +(sizeMb / m('toDisk')).toFixed(1),
    upload_ratio_to_disk: +(m('copy') / m('up')).toFixed(2),
    download_ratio_to_disk: +(m('copy') / m('down')).toFixed(2),
    upload_ratio_to_stream_copy: +(m('stream') / m('up')).toFixed(2),
    download_ratio_to_stream_copy: +(m('stream') / m('down')).toFixed(2),
    download_to_disk_ratio_to_disk: +(m('copy') / m('toDisk')).toFixed(2),
    server_peak_rss_mib_before: rssBefore, server_peak_rss_mib_after: rssAfter,
    server_rss_growth_mib: rssAfter - rssBefore,
  })
} finally {
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}
