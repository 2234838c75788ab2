// Authentication (spec 1 "Authentication"): HTTP Basic with email and password, or a bearer
// token from POST /v2/auth/token. A verified Basic header is cached (bounded LRU, short TTL)
// so that a request does not pay a full scrypt hash; the cache entry is bound to the stored
// password hash, so a password change or a deleted user invalidates it at once.
import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Catalog } from '../catalog/index.ts'
import { AuthenticationError } from '../catalog/errors.ts'
import { verifyPassword } from '../catalog/passwords.ts'
import type { User } from '../catalog/types.ts'

export interface Caller { user: User; token?: string }

export class Authenticator {
  private readonly cache: LRUCache<string, { userId: number; passwordHash: string }>

  constructor (private readonly catalog: Catalog, opts: { cacheSize?: number; cacheTtlMs?: number } = {}) {
    this.cache = new LRUCache({ max: opts.cacheSize ?? 10_000, ttl: opts.cacheTtlMs ?? 5 * 60_000 })
  }

  async authenticate(header: string | undefined): Promise<Caller> {
    if (!header) throw new AuthenticationError('Authentication required: send HTTP Basic credentials or a Bearer token')
    const space = header.indexOf(' ')
    const scheme = header.slice(0, space).toLowerCase()
    const value = header.slice(space + 1).trim()
    if (space > 0 && scheme === 'bearer') return this.bearer(value)
    if (space > 0 && scheme === 'basic') return this.basic(value)
    throw new AuthenticationError('Unsupported Authorization scheme: use Basic or Bearer')
  }

  private bearer(token: string): Caller {
    const userId = this.catalog.tokens.verify(token)
    const user = userId === undefined ? undefined : this.catalog.users.findWithHash(userId)
    if (!user) throw new AuthenticationError('Invalid or expired token')
    return { user: stripHash(user), token }
  }

  private async basic(encoded: string): Promise<Caller> {
    const key = createHash('sha256').update(encoded).digest('base64')
    const hit = this.cache.get(key)
    if (hit) {
      const user = this.catalog.users.findWithHash(hit.userId)
      if (user && user.password_hash === hit.passwordHash) return { user: stripHash(user) }
      this.cache.delete(key)
    }
    const decoded = Buffer.from(encoded, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon < 0) throw new AuthenticationError('Malformed Basic credentials')
    const user = this.catalog.users.findByEmailWithHash(decoded.slice(0, colon))
    // Same cost and same text for an unknown email and a wrong password: no account probing.
    const ok = await verifyPassword(decoded.slice(colon + 1), user?.password_hash ?? DUMMY_HASH)
    if (!user || !ok) throw new AuthenticationError('Invalid email or password')
    this.cache.set(key, { userId: user.id, passwordHash: user.password_hash })
    return { user: stripHash(user) }
  }
}

const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='

function stripHash(u: User & { password_hash?: string }): User {
  return { id: u.id, company_id: u.company_id, email: u.email, firstName: u.firstName, lastName: u.lastName }
}
