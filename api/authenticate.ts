// Authentication (spec 1 "Authentication"): HTTP Basic with email and password, or a bearer
// token from POST /v2/auth/token.
//
// Basic cache (DESIGN.md "passwords"): a verified login is cached so that a request does not
// pay a full scrypt hash. The cache is keyed by the user's id, never by the header: every
// request still looks the user up by the email it names (one indexed query), and an entry
// counts only while the user's current email and password hash are the ones it was made
// with. An old email therefore finds no user at once, and a new password or a deleted user
// invalidates the entry at once, on every node sharing the catalog. The entry keeps a keyed
// hash (HMAC with a per-process secret) of the password, never the password. Besides, the
// catalog's `credentials` change (catalog/port.ts, "Changes") drops the user's entry (or all
// entries) on every node as soon as a password, email, user, company or token changes on any
// (issue 17, item 4): no node keeps a login alive that another node has ended.
//
// Throttling (issue 9, item 6): failed logins are counted per source address and per
// account (the email named) in the shared LoginThrottle; while either is blocked, an attempt
// is refused with 429 and Retry-After before the password is checked. Failed bearer tokens
// count per address under their own key (`bearer:<address>`), so a client polling with a
// stale token does not lock password logins out of a shared address. Unknown and known
// emails cost the same: an unknown one is checked against a dummy hash of the same cost.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Catalog } from '../catalog/index.ts'
import { CREDENTIALS } from '../catalog/changes.ts'
import { AuthenticationError, ForbiddenError, TooManyRequestsError } from '../core/errors.ts'
import { LoginThrottle } from '../catalog/login-throttle.ts'
import { verifyPassword } from '../catalog/passwords.ts'
import type { User, UserWithHash } from '../catalog/types.ts'

export interface Caller { user: User; token?: string }

export interface AuthenticatorOptions {
  cacheSize?: number
  cacheTtlMs?: number
  /** Counts failed logins; default: a LoginThrottle with its documented defaults. */
  throttle?: LoginThrottle
}

interface CacheEntry { email: string; passwordHash: string; proof: Buffer }

export class Authenticator {
  private readonly cache: LRUCache<number, CacheEntry>
  private readonly secret = randomBytes(32)
  readonly throttle: LoginThrottle
  private readonly unsubscribe: () => void

  constructor (private readonly catalog: Catalog, opts: AuthenticatorOptions = {}) {
    this.cache = new LRUCache({ max: opts.cacheSize ?? 10_000, ttl: opts.cacheTtlMs ?? 5 * 60_000 })
    this.throttle = opts.throttle ?? new LoginThrottle()
    this.unsubscribe = catalog.changes.subscribe(CREDENTIALS, (change) => {
      if (typeof change.userId === 'number') this.cache.delete(change.userId)
      else this.cache.clear()
    })
  }

  /** Stops listening for credential changes (the app closes). */
  close(): void {
    this.unsubscribe()
  }

  /** Verified logins cached now (tests). */
  get cachedLogins(): number {
    return this.cache.size
  }

  /** The caller of a request; `address` is the source address the throttle counts. */
  async authenticate(header: string | undefined, address?: string): Promise<Caller> {
    if (!header) throw new AuthenticationError('Authentication required: send HTTP Basic credentials or a Bearer token')
    const space = header.indexOf(' ')
    const scheme = header.slice(0, space).toLowerCase()
    const value = header.slice(space + 1).trim()
    if (space > 0 && scheme === 'bearer') return this.bearer(value, address)
    if (space > 0 && scheme === 'basic') return this.basic(value, address)
    throw new AuthenticationError('Unsupported Authorization scheme: use Basic or Bearer')
  }

  /**
   * Checks the password of an authenticated user again (PUT /v2/user changing email or
   * password): throttled and counted like a login, as it is one more way to guess.
   */
  async confirmPassword(user: User, password: string, address?: string): Promise<void> {
    this.refuseIfBlocked(address, user.email)
    const stored = await this.catalog.users.findWithHash(user.id)
    if (!stored || !(await verifyPassword(password, stored.password_hash))) {
      this.throttle.failed(address, user.email)
      throw new ForbiddenError('current_password is wrong: changing the email or password needs the current password of this account')
    }
    this.throttle.succeeded(user.email)
  }

  private async bearer(token: string, address: string | undefined): Promise<Caller> {
    const key = address === undefined ? undefined : `bearer:${address}`
    this.refuseIfBlocked(key, undefined)
    const userId = await this.catalog.tokens.verify(token)
    const user = userId === undefined ? undefined : await this.catalog.users.findWithHash(userId)
    if (!user) {
      this.throttle.failed(key, undefined)
      throw new AuthenticationError('Invalid or expired token')
    }
    return { user: stripHash(user), token }
  }

  private async basic(encoded: string, address: string | undefined): Promise<Caller> {
    const decoded = Buffer.from(encoded, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon < 0) {
      this.refuseIfBlocked(address, undefined)
      this.throttle.failed(address, undefined)
      throw new AuthenticationError('Malformed Basic credentials')
    }
    const email = decoded.slice(0, colon)
    const password = decoded.slice(colon + 1)
    this.refuseIfBlocked(address, email)
    const user = await this.catalog.users.findByEmailWithHash(email)
    const proof = createHmac('sha256', this.secret).update(password).digest()
    if (user && this.cached(user, proof)) {
      this.throttle.succeeded(email)
      return { user: stripHash(user) }
    }
    // Same cost and same text for an unknown email and a wrong password: no account probing.
    const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH)
    if (!user || !ok) {
      this.throttle.failed(address, email)
      throw new AuthenticationError('Invalid email or password')
    }
    this.cache.set(user.id, { email: user.email, passwordHash: user.password_hash, proof })
    this.throttle.succeeded(email)
    return { user: stripHash(user) }
  }

  /** A cache hit: the entry was made for this user's current email and hash, with this password. */
  private cached(user: UserWithHash, proof: Buffer): boolean {
    const hit = this.cache.get(user.id)
    if (!hit) return false
    if (hit.email !== user.email || hit.passwordHash !== user.password_hash) {
      this.cache.delete(user.id)
      return false
    }
    // A mismatch falls through to the full hash: a wrong password costs the same, cached or not.
    return timingSafeEqual(hit.proof, proof)
  }

  private refuseIfBlocked(address: string | undefined, account: string | undefined): void {
    const wait = this.throttle.retryAfterMs(address, account)
    if (wait > 0) {
      const seconds = Math.max(1, Math.ceil(wait / 1000))
      throw new TooManyRequestsError(`Too many failed logins from this address or for this account: try again in ${seconds} s`, wait)
    }
  }
}

const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='

function stripHash(u: User & { password_hash?: string }): User {
  return { id: u.id, company_id: u.company_id, email: u.email, firstName: u.firstName, lastName: u.lastName }
}
