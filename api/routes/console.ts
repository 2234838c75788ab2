// The web console at `/` (issue 33 item 3): static files from memory (api/console-assets.ts),
// public (the console itself logs in against /v2/auth/token), hidden from the OpenAPI
// document. The API stays under /v2; these routes are not API endpoints and have no number.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import { NotFoundError } from '../../core/errors.ts'
import { CONSOLE_HEADERS, consoleAssets, type Asset } from '../console-assets.ts'

/** A Host header fit to name in the policy (the WebSocket's origin); anything else leaves 'self' alone. */
const PLAIN_HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/

export const consoleRoutes: FastifyPluginAsync<{ dir?: string }> = async (app, opts) => {
  // Read on the first request, once per process (~30-60 ms of gzip): apps that never serve the console never pay it.
  const assets = () => consoleAssets(opts.dir)
  const send = (req: FastifyRequest, reply: FastifyReply, a: Asset) => {
    reply.headers(CONSOLE_HEADERS).header('etag', a.etag).header('vary', 'accept-encoding')
    const host = req.headers.host
    // 'self' covers ws:// of the same host in CSP 3; naming it also serves browsers that read CSP 2.
    if (host && PLAIN_HOST.test(host)) reply.header('content-security-policy', CONSOLE_HEADERS['content-security-policy'].replace("connect-src 'self'", `connect-src 'self' ws://${host} wss://${host}`))
    if (req.headers['if-none-match'] === a.etag) return reply.code(304).send()
    reply.type(a.type)
    if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(a.gzip)
    return reply.send(a.body)
  }
  app.get('/', { schema: { hide: true } }, async (req, reply) => send(req, reply, assets().get('/')!))
  app.get('/console/*', { schema: { hide: true } }, async (req, reply) => {
    const path = req.url.split('?')[0]
    const a = assets().get(path)
    if (!a) throw new NotFoundError(`The console has no file ${path.slice(0, 200)}`)
    return send(req, reply, a)
  })
}
