// Documents throughput (issue 10): a large file uploaded through the API (multipart, streamed
// into the storage) and downloaded through the storage's expiring link, against copying the
// same file on disk (copy + fsync, as durable as an upload: the kernel's copy_file_range
// through copyFile, and a Node read-into-write stream copy as the user-space peer). Prints NDJSON: one line per round
// and a summary with medians, ratios to the disk copy (target >= 0.5) and the server's peak
// resident memory (bounded: it must not grow with the file size). Beside them, the ceiling of
// HTTP here: a bare node:http peer (bench/http-peer.ts, its own process) receiving and sending
// the same number of bytes from memory with the same client; and the CPU seconds per GiB of
// the server (all its threads) and of this client, which a busy machine disturbs less than
// the wall-clock rates.
//   npm run bench:blobs                         1 GiB, 3 rounds, embedded storage (fs)
//   LINTEL_BENCH_BLOB_MB=64 npm run bench:blobs  a quick run
//   LINTEL_BENCH_ROUNDS=1, LINTEL_BENCH_BLOBS=s3 (S3Proxy from scripts/services/s3proxy.sh)
import { createHash, randomBytes } from 'node:crypto'
import { spawn } from 'node:child_process'
import { createReadStream, createWriteStream, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
const fileSize = size

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

/** POST the file as multipart/form-data, streamed from disk; seconds until the 201. The
 *  boundary is as long as curl's and browsers' (40 characters): the server's search for it
 *  in the body runs faster with a longer one. The file is read 4 MiB at a time into two
 *  buffers reused once the socket has taken them; the client computes no hash. */
async function upload(url: string, file: string, name: string, size = fileSize): Promise<{ seconds: number; body: any }> {
  const boundary = '------------------------' + randomBytes(8).toString('hex')
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`)
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  const fh = await open(file, 'r')
  const t0 = performance.now()
  try {
    return await new Promise((resolve, reject) => {
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
      const write = (b: Buffer) => new Promise<void>((ok, ko) => req.write(b, (err) => (err ? ko(err) : ok())))
      const pump = async () => {
        const buffers = [Buffer.allocUnsafeSlow(4 * MB), Buffer.allocUnsafeSlow(4 * MB)]
        const written: (Promise<void> | undefined)[] = [undefined, undefined]
        for (let pos = 0, i = 0; pos < size; i ^= 1) {
          await written[i]
          const { bytesRead } = await fh.read(buffers[i], 0, Math.min(4 * MB, size - pos), pos)
          pos += bytesRead
          written[i] = write(buffers[i].subarray(0, bytesRead))
        }
        await Promise.all(written)
        req.end(tail)
      }
      pump().catch(reject)
    })
  } finally {
    await fh.close()
  }
}

/** GET the link (node:http, no WHATWG streams): into a file on disk as a client saving it
 *  would, or counted and dropped (the storage's own serving rate, without the client's disk). */
async function download(link: string, to?: string): Promise<number> {
  const t0 = performance.now()
  const res = await new Promise<IncomingMessage>((resolve, reject) => get(link, resolve).on('error', reject))
  if (res.statusCode !== 200) throw new Error(`download: ${res.statusCode}`)
  let got = 0
  if (to) await pipeline(res, createWriteStream(to, { highWaterMark: MB }))
  else await new Promise<void>((resolve, reject) => { res.on('data', (chunk: Buffer) => { got += chunk.length }).on('end', resolve).on('error', reject) })
  const s = (performance.now() - t0) / 1000
  if (to) rmSync(to)
  else if (got !== size) throw new Error(`download: ${got} bytes of ${size}`)
  return s
}

/** CPU seconds a process has used so far, all threads (Linux /proc/<pid>/stat utime + stime). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}
const ownCpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6 }

/** Runs `f`, returning its result with the CPU seconds per GiB of the server and of this client. */
async function withCpu<T>(pid: number, f: () => Promise<T>): Promise<{ r: T; server: number; client: number }> {
  const s0 = cpuSeconds(pid)
  const c0 = ownCpu()
  const r = await f()
  const gib = size / (1024 * MB)
  return { r, server: (cpuSeconds(pid) - s0) / gib, client: (ownCpu() - c0) / gib }
}

async function startPeer(): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./http-peer.ts', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once('data', (d) => resolve(String(d).trim()))
    child.once('exit', (code) => reject(new Error(`http peer exited ${code}`)))
  })
  return { url, pid: child.pid!, stop: async () => { child.kill('SIGTERM'); await new Promise((r) => child.once('exit', r)) } }
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
const peer = await startPeer()
try {
  progress(`writing a ${sizeMb} MiB random file`)
  const file = join(dir, 'source.bin')
  const sha256 = await writeRandomFile(file)
  const pid = (await api(server, 'POST', '/v2/company/project', { name: 'bench-blobs' })).resource.project.id
  // Warm-up (not measured): a first 1 MiB upload to each server, so no round pays for compiling the path.
  const warm = join(dir, 'warm.bin')
  writeFileSync(warm, randomBytes(MB))
  await upload(`${server.url}/v2/project/${pid}/file?folder=warm`, warm, 'warm.bin', MB)
  await upload(peer.url, warm, 'warm.bin', MB)
  const rssBefore = await peakRssMb(server.child.pid!)
  const keys = ['copy', 'stream', 'rawUp', 'rawDown', 'up', 'down', 'toDisk', 'upCpu', 'upClientCpu', 'downCpu', 'downClientCpu', 'rawUpCpu', 'rawDownCpu'] as const
  type Row = Record<(typeof keys)[number], number>
  const rows: Row[] = []
  const rate = (s: number) => +(sizeMb / s).toFixed(1)
  const cpu = (x: number) => +x.toFixed(2)
  for (let round = 1; round <= rounds; round++) {
    progress(`round ${round}/${rounds}: disk copy`)
    const copy = await diskCopy(file, join(dir, 'copy.bin'))
    const stream = await streamCopy(file, join(dir, 'copy.bin'))
    progress(`round ${round}/${rounds}: bare HTTP peer`)
    const rawUp = await withCpu(peer.pid, () => upload(peer.url, file, 'raw.bin'))
    if (rawUp.r.body.bytes < size) throw new Error(`the peer received ${rawUp.r.body.bytes} bytes`)
    const rawDown = await withCpu(peer.pid, () => download(`${peer.url}/?bytes=${size}`))
    progress(`round ${round}/${rounds}: upload through the API`)
    const up = await withCpu(server.child.pid!, () => upload(`${server.url}/v2/project/${pid}/file?folder=bench`, file, `r${round}.bin`))
    if (up.r.body.resource.sha256 !== sha256) throw new Error('the stored SHA-256 differs from the file\'s')
    const { download_link: link } = await api(server, 'GET', `/v2/project/${pid}/file?path=bench/r${round}.bin&expiry=1h`)
    progress(`round ${round}/${rounds}: download through the link`)
    const down = await withCpu(server.child.pid!, () => download(link))
    const toDisk = await download(link, join(dir, 'download.bin'))
    await api(server, 'DELETE', `/v2/project/${pid}/file?path=bench/r${round}.bin`)
    const row: Row = {
      copy, stream, rawUp: rawUp.r.seconds, rawDown: rawDown.r, up: up.r.seconds, down: down.r, toDisk,
      upCpu: up.server, upClientCpu: up.client, downCpu: down.server, downClientCpu: down.client, rawUpCpu: rawUp.server, rawDownCpu: rawDown.server,
    }
    rows.push(row)
    emit({
      bench: 'blobs', storage: mode, round, size_mib: sizeMb, disk_copy_mib_s: rate(copy), stream_copy_mib_s: rate(stream),
      raw_http_upload_mib_s: rate(row.rawUp), raw_http_download_mib_s: rate(row.rawDown),
      api_upload_mib_s: rate(row.up), link_download_mib_s: rate(row.down), link_download_to_disk_mib_s: rate(toDisk),
      server_cpu_s_per_gib_upload: cpu(row.upCpu), server_cpu_s_per_gib_download: cpu(row.downCpu),
      client_cpu_s_per_gib_upload: cpu(row.upClientCpu), client_cpu_s_per_gib_download: cpu(row.downClientCpu),
      peer_cpu_s_per_gib_upload: cpu(row.rawUpCpu), peer_cpu_s_per_gib_download: cpu(row.rawDownCpu),
    })
  }
  const m = (k: (typeof keys)[number]) => median(rows.map((r) => r[k]))
  const rssAfter = await peakRssMb(server.child.pid!)
  emit({
    bench: 'blobs', storage: mode, summary: true, size_mib: sizeMb, rounds,
    disk_copy_mib_s: rate(m('copy')),
    stream_copy_mib_s: rate(m('stream')),
    raw_http_upload_mib_s: rate(m('rawUp')),
    raw_http_download_mib_s: rate(m('rawDown')),
    api_upload_mib_s: rate(m('up')),
    link_download_mib_s: rate(m('down')),
    link_download_to_disk_mib_s: rate(m('toDisk')),
    upload_ratio_to_disk: +(m('copy') / m('up')).toFixed(2),
    download_ratio_to_disk: +(m('copy') / m('down')).toFixed(2),
    upload_ratio_to_stream_copy: +(m('stream') / m('up')).toFixed(2),
    download_ratio_to_stream_copy: +(m('stream') / m('down')).toFixed(2),
    download_to_disk_ratio_to_disk: +(m('copy') / m('toDisk')).toFixed(2),
    upload_ratio_to_raw_http: +(m('rawUp') / m('up')).toFixed(2),
    download_ratio_to_raw_http: +(m('rawDown') / m('down')).toFixed(2),
    server_cpu_s_per_gib_upload: cpu(m('upCpu')), server_cpu_s_per_gib_download: cpu(m('downCpu')),
    client_cpu_s_per_gib_upload: cpu(m('upClientCpu')), client_cpu_s_per_gib_download: cpu(m('downClientCpu')),
    peer_cpu_s_per_gib_upload: cpu(m('rawUpCpu')), peer_cpu_s_per_gib_download: cpu(m('rawDownCpu')),
    server_peak_rss_mib_before: rssBefore, server_peak_rss_mib_after: rssAfter,
    server_rss_growth_mib: rssAfter - rssBefore,
  })
} finally {
  await peer.stop()
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}
