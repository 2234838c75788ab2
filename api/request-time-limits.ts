// Time limits of an HTTP request (issue 29 item 2, "request and body time limits"): a client
// cannot hold a connection by sending a request slowly.
//
// - Headers: Node's own headersTimeout (LINTEL_HTTP_HEADERS_TIMEOUT_S, default 10 s). Headers
//   not complete within it (a slowloris client sending a header line now and then) get Node's
//   408 and the connection is closed. Node checks its connections every
//   connectionsCheckingInterval (default 30 s): it is set to a second or less so the bound holds.
// - Body: a body the API reads whole (JSON; at most LINTEL_INGEST_BODY_MB) must be complete
//   LINTEL_HTTP_BODY_TIMEOUT_S (default 60 s, 0 off) after its headers; a slower one is
//   answered 408 REQUEST_TIMEOUT, nothing of it is parsed or stored, and the connection is
//   closed. Multipart uploads stream their body themselves and are not cut here: the
//   documents upload has its own minimum rate (engine/blobs/documents.ts), the CSV import the
//   same rate through slowUploadGuard() below (a total time would cut big imports).
// Node's requestTimeout (the whole request) stays off: it would cut long uploads as well.
import { PassThrough } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import { RequestTimeoutError } from '../core/errors.ts'
import { afterMs, every, MICROS_PER_MS, systemClock, type Cancel, type Clock } from '../core/clock/clock.ts'

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000
export const DEFAULT_BODY_TIMEOUT_MS = 60_000

/** The http.createServer options of the headers limit (fastify's `http` option). */
export function headersLimit(headersTimeoutMs = DEFAULT_HEADERS_TIMEOUT_MS): { headersTimeout: number; connectionsCheckingInterval: number } {
  return { headersTimeout: headersTimeoutMs, connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeoutMs / 4))) }
}

/** Cuts bodies (other than multipart) that are not complete `bodyTimeoutMs` after their headers. */
export function installBodyTimeLimit(app: FastifyInstance, bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS, clock: Clock = systemClock): void {
  if (bodyTimeoutMs <= 0) return
  app.addHook('preParsing', async (req, reply, payload) => {
    const h = req.headers
    const declared = (h['content-length'] !== undefined && h['content-length'] !== '0') || h['transfer-encoding'] !== undefined
    if (!declared || String(h['content-type'] ?? '').toLowerCase().startsWith('multipart/')) return payload
    if (req.raw.complete) return payload // already read whole (e.g. by inject())
    const guard = new PassThrough()
    let ended = false
    const finish = () => { ended = true; cancel() }
    const cancel = afterMs(clock, () => {
      if (ended) return
      payload.unpipe(guard)
      // The rest of the body is never read: the answer closes the connection.
      reply.header('connection', 'close')
      guard.destroy(new RequestTimeoutError(`Request body too slow: not complete within ${bodyTimeoutMs / 1000} s of its headers (LINTEL_HTTP_BODY_TIMEOUT_S); nothing of it was read or stored`))
    }, bodyTimeoutMs)
    payload.once('end', finish)
    payload.once('close', finish)
    payload.once('error', (err) => { finish(); guard.destroy(err) })
    payload.pipe(guard)
    return guard
  })
}

/** The minimum rate of a streamed upload (LINTEL_UPLOAD_MIN_RATE_KB over LINTEL_UPLOAD_RATE_WINDOW_S). */
export interface MinRate { minBytesPerSecond: number; rateWindowMs: number }

/**
 * Counts the bytes of a streamed upload (`counted`) and calls `cut` with the bytes of the last
 * window when fewer than the minimum rate arrived: a CSV import declaring gigabytes and
 * trickling would otherwise hold its connection and its import job for days.
 */
export function slowUploadGuard(rate: MinRate, cut: (got: number) => void, clock: Clock = systemClock): { counted: (n: number) => void; cancel: Cancel } {
  let bytes = 0
  if (rate.minBytesPerSecond <= 0) return { counted: () => {}, cancel: () => {} }
  const least = Math.ceil(rate.minBytesPerSecond * rate.rateWindowMs / 1000)
  let last = 0
  const cancel = every(clock, () => {
    const got = bytes - last
    last = bytes
    if (got >= least) return
    cancel()
    cut(got)
  }, rate.rateWindowMs * MICROS_PER_MS)
  return { counted: (n) => { bytes += n }, cancel }
}
