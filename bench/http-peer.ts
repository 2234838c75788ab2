// A bare node:http server, the ceiling of HTTP on this machine for bench/blobs.ts: run as its
// own process (like the platform), it receives a POST body and drops it (answering 201 with
// the byte count), and streams `GET /?bytes=N` from one buffer in memory (no disk, no
// framework, no parsing). Prints its URL on stdout.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

const CHUNK = Buffer.alloc(1024 * 1024, 0x5a)

const server = createServer((req, res) => {
  if (req.method === 'POST') {
    let bytes = 0
    req.on('data', (d: Buffer) => { bytes += d.length })
    req.on('end', () => { res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ bytes })) })
    return
  }
  const total = Number(new URL(req.url ?? '/', 'http://peer').searchParams.get('bytes') ?? 0)
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': total })
  let left = total
  const pump = () => {
    while (left > 0) {
      const n = Math.min(CHUNK.length, left)
      left -= n
      if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) return void res.once('drain', pump)
    }
    res.end()
  }
  pump()
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`)
})
process.on('SIGTERM', () => { server.closeAllConnections(); server.close(() => process.exit(0)) })
