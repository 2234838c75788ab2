// Bearer tokens: POST /v2/auth/token exchanges a login (HTTP Basic) for a token that lives
// `expires_in` seconds (default from configuration, at most 30 days); DELETE revokes it.
// Only a password mints a token (issue 9, item 5): a bearer caller is refused, so a leaked
// token cannot renew itself beyond its own expiry. Deleting the user or changing its password
// revokes all of its tokens.
import type { FastifyPluginAsync } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { ForbiddenError, InvalidInputError } from '../../core/errors.ts'
import type { RouteContext } from '../route-context.ts'
import { created, deleted } from '../envelope.ts'
import { Envelope } from '../schemas.ts'
import { at } from '../registry.ts'

const Token = Type.Object({
  access_token: Type.String(), token_type: Type.String(), expires_in: Type.Integer(), expires_at: Type.String(),
})

export const authRoutes: FastifyPluginAsync<RouteContext> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  app.route({
    ...at(6),
    schema: {
      body: Type.Object({ expires_in: Type.Optional(Type.Integer({ minimum: 60, maximum: 30 * 86400 })) }, { additionalProperties: false }),
      response: { 201: Envelope(Token) },
    },
    handler: async (req, reply) => {
      if (req.caller.token) throw new ForbiddenError('A bearer token cannot create tokens: call POST /v2/auth/token with HTTP Basic credentials (email and password)')
      return created(reply, await ctx.catalog.tokens.issue(req.caller.user.id, req.body.expires_in ?? ctx.tokenTtlSeconds))
    },
  })
  app.route({
    ...at(7),
    schema: { response: { 200: Envelope(Type.Object({ revoked: Type.Boolean() })) } },
    handler: async (req, reply) => {
      if (!req.caller.token) throw new InvalidInputError('This call was not made with a bearer token')
      return deleted(reply, { revoked: await ctx.catalog.tokens.revoke(req.caller.token) })
    },
  })
}
