// The storage listener of the embedded document store: a small HTTP server on its own port
// (not the /v2 API, spec 1 "Documents": the link is served by the storage) that answers GET
// and HEAD of signed links, with single byte ranges, and S3-style XML errors: 403 after
// valid_until or with a wrong signature, 404 for a deleted file.
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pipeline } from 'node:stream/promises'
import { parseRange } from './byte-range.ts'
import { verify } from './link-signing.ts'
import { s3ErrorXml } from './s3-error-xml.ts'

export interface ListenerOptions {
  host: string
  port: number
  bucket: string
  secret: Buffer
  /** Path of the file holding a key; undefined when the key is not a valid key. */
  fileOf: (key: string) => string | undefined
  now: () => number
}

export interface StorageListener { server: Server; url: string; close: () => Promise<void> }

export async function startStorageListener(o: ListenerOptions): Promise<StorageListener> {
  const hostId = `lintel-fs-${o.host}`
  const fail = (res: ServerResponse, status: number, code: string, message: string, key: string) => {
    const body = s3ErrorXml({ code, message, bucket: o.bucket, key, hostId })
    res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body) })
    res.end(body)
  }
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://storage')
    const prefix = `/${o.bucket}/`
    const key = url.pathname.startsWith(prefix) ? safeDecode(url.pathname.slice(prefix.length)) : ''
    if (req.method !== 'GET' && req.method !== 'HEAD') return fail(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.', key)
    const verdict = verify(o.secret, o.bucket, key, url.searchParams, o.now())
    if (!verdict.ok) {
      return verdict.reason === 'expired'
        ? fail(res, 403, 'AccessDenied', 'Request has expired', key)
        : fail(res, 403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.', key)
    }
    const file = o.fileOf(key)
    const st = file === undefined ? undefined : await stat(file).catch(() => undefined)
    if (!file || !st?.isFile()) return fail(res, 404, 'NoSuchKey', 'The specified key does not exist.', key)
    const headers: Record<string, string | number> = {
      'accept-ranges': 'bytes', 'content-type': 'application/octet-stream', 'last-modified': st.mtime.toUTCString(), 'cache-control': 'private',
    }
    const filename = verdict.params.filename
    if (filename !== undefined) headers['content-disposition'] = `attachment; filename*=UTF-8''${encodeURIComponent(filename)}`
    const range = parseRange(req.headers.range, st.size)
    if (range.kind === 'unsatisfiable') {
      res.writeHead(416, { 'content-range': `bytes */${st.size}`, 'content-length': 0 })
      return res.end()
    }
    const [start, end] = range.kind === 'part' ? [range.start, range.end] : [0, st.size - 1]
    if (range.kind === 'part') headers['content-range'] = `bytes ${start}-${end}/${st.size}`
    headers['content-length'] = st.size === 0 ? 0 : end - start + 1
    res.writeHead(range.kind === 'part' ? 206 : 200, headers)
    if (req.method === 'HEAD' || st.size === 0) return res.end()
    await pipeline(createReadStream(file, { start, end, highWaterMark: 1024 * 1024 }), res)
  }
  const server = createServer((req, res) => {
    handle(req, res).catch(() => { if (!res.headersSent) fail(res, 500, 'InternalError', 'We encountered an internal error.', ''); else res.destroy() })
  })
  server.listen(o.port, o.host)
  await new Promise<void>((resolve, reject) => { server.once('listening', resolve); server.once('error', reject) })
  const { port } = server.address() as AddressInfo
  return {
    server, url: `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}

function safeDecode(s: string): string {
  try { return decodeURIComponent(s) } catch { return s }
}
