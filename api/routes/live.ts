// GET /v2/live (endpoint 190, issue 33): the live subscriptions' WebSocket. The upgrade is
// authenticated by the access hooks like any request (Basic, Bearer, or a browser's
// `bearer.<token>` sub-protocol) and answers 401 before upgrading; with `project_id` the
// grant and the company are checked on the upgrade too (403, 404), else on each subscribe.
// The messages are protocol/live-messages.ts; the sessions and routing api/live/. A plain GET
// (no upgrade) answers 400.
import type { FastifyPluginAsync } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { WebSocket } from 'ws'
import { InvalidInputError } from '../../core/errors.ts'
import { LIVE_CLOSE } from '../../protocol/live-messages.ts'
import type { LiveHub } from '../live/hub.ts'
import { LiveSession } from '../live/session.ts'
import type { RouteContext } from '../route-context.ts'
import { at } from '../registry.ts'
import { Id } from '../schemas.ts'

/** How often a socket is pinged; one that did not answer the previous ping is cut. */
const HEARTBEAT_MS = 30_000

export const liveRoutes: FastifyPluginAsync<RouteContext & { hub?: LiveHub }> = async (app, ctx) => {
  const { hub } = ctx
  const heartbeat = setInterval(() => hub?.heartbeat(), HEARTBEAT_MS)
  heartbeat.unref()
  app.addHook('onClose', async () => { clearInterval(heartbeat); await hub?.close() })
  app.route({
    ...at(190),
    config: { endpoint: 190, projectsInMessages: true },
    schema: {
      description: 'A WebSocket (send the upgrade request; a plain GET answers 400). Messages, close codes and the resume: docs/live.md.',
      querystring: Type.Object({ project_id: Type.Optional(Id) }, { additionalProperties: false }),
    },
    handler: async () => {
      throw new InvalidInputError('GET /v2/live is a WebSocket: send an upgrade request (Connection: Upgrade, Upgrade: websocket)')
    },
    wsHandler: (socket: WebSocket, req) => {
      if (!hub) return socket.close(LIVE_CLOSE.UNAVAILABLE, 'live subscriptions are not served by this process')
      const { user, token } = req.caller
      // The listeners go on before anything awaits: @fastify/websocket drops the frames that
      // arrive while none listens, and a Basic login's hash is read from the catalog first (a
      // PostgreSQL round trip in the scaled mode). Frames wait for the session, in order.
      const opening = (async () => {
        const hash = token ? undefined : (await ctx.catalog.users.findWithHash(user.id))?.password_hash
        const session = new LiveSession(hub, socket, user, token ? { token } : { passwordHash: hash ?? '' }, req.permissions)
        hub.add(session)
        return session
      })()
      opening.catch((err) => {
        req.log.error({ err }, 'live: the session could not be opened')
        socket.close(LIVE_CLOSE.INTERNAL, 'the session could not be opened; the server logged why')
      })
      const then = (fn: (s: LiveSession) => void) => { opening.then(fn, () => {}) }
      socket.on('message', (data, isBinary) => {
        const text = isBinary ? undefined : data.toString()
        then((s) => text === undefined ? s.end(LIVE_CLOSE.BAD_FRAME, 'only JSON text frames are accepted') : s.receive(text))
      })
      socket.on('pong', () => then((s) => { s.alive = true }))
      socket.on('close', () => then((s) => s.gone()))
    },
  })
}
