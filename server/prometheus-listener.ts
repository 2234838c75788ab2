// The listener of GET /metrics (issue 34 item 4): its own HTTP server on the operator's
// address (LINTEL_METRICS_HOST, default 127.0.0.1) and port, never the API's, optionally
// behind a bearer token (LINTEL_METRICS_TOKEN). Anything but GET /metrics is 404.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { timingSafeEqual } from 'node:crypto'
import type { Registry } from 'prom-client'
import type { MetricsListener } from './metrics-config.ts'
import { listenProblem, StartupError } from './preflight.ts'

export async function startMetricsListener(l: MetricsListener, registry: Registry, onError: (err: unknown) => void): Promise<{ address: string; stop: () => Promise<void> }> {
  const expected = l.token === undefined ? undefined : Buffer.from(`Bearer ${l.token}`)
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]
    if (req.method !== 'GET' || path !== '/metrics') { res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n'); return }
    if (expected) {
      const given = Buffer.from(req.headers.authorization ?? '')
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('Unauthorized: send Authorization: Bearer <LINTEL_METRICS_TOKEN>\n')
        return
      }
    }
    registry.metrics().then((text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text), (err) => {
      onError(err)
      res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n')
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => reject(err.code?.startsWith('E') ? new StartupError(listenProblem('LINTEL_METRICS_PORT', l.host, l.port, err)) : err))
    server.listen({ host: l.host, port: l.port }, resolve)
  })
  const a = server.address() as AddressInfo
  return {
    address: `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`,
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}
