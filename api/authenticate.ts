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
// Throttling (issue 9 item 6, issue 29 item 1; catalog/login-throttle.ts): every attempt is
// admitted by the LoginThrottle before its password is checked, and counts as failed until
// it succeeds, so concurrent guesses cannot race past the limit. Counters: per (address,
// email), per address, and per email from addresses that never logged in to it (a user's
// known addresses are never locked out by guessing from elsewhere). A refused attempt answers
// 429 with Retry-After and checks no password. Failed bearer tokens count per address under
// their own key (`bearer:<address>`), so a client polling with a stale token does not lock
// password logins out of a shared address. Unknown and known emails cost the same: an
// unknown one is checked against a dummy hash of the same cost.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Catalog } from '../catalog/index.ts'
import { CREDENTIALS } from '../catalog/changes.ts'
import { AuthenticationError, ForbiddenError, TooManyRequestsError } from '../core/errors.ts'
import { LoginThrottle, type LoginAttempt } from '../catalog/login-throttle.ts'
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
  async confirmPassword(user: User, password: string, address?: string, why = 'changing the email or password'): Promise<void> {
    const attempt = this.admit(address, user.email)
    const stored = await this.catalog.users.findWithHash(user.id)
    if (!stored || !(await verifyPassword(password, stored.password_hash))) {
      throw new ForbiddenError(`current_password is wrong: ${why} needs the current password of this account`)
    }
    attempt.succeeded()
  }

  private async bearer(token: string, address: string | undefined): Promise<Caller> {
    const attempt = this.admit(address === undefined ? undefined : `bearer:${address}`, undefined)
    const userId = await this.catalog.tokens.verify(token)
    const user = userId === undefined ? undefined : await this.catalog.users.findWithHash(userId)
    if (!user) throw new AuthenticationError('Invalid or expired token')
    attempt.succeeded()
    return { user: stripHash(user), token }
  }

  private async basic(encoded: string, address: string | undefined): Promise<Caller> {
    const decoded = Buffer.from(encoded, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon < 0) {
      this.admit(address, undefined) // counted: it stays a failure
      throw new AuthenticationError('Malformed Basic credentials')
    }
    const email = decoded.slice(0, colon)
    const password = decoded.slice(colon + 1)
    const attempt = this.admit(address, email)
    const user = await this.catalog.users.findByEmailWithHash(email)
    const proof = createHmac('sha256', this.secret).update(password).digest()
    if (user && this.cached(user, proof)) {
      attempt.succeeded()
      return { user: stripHash(user) }
    }
    // Same cost and same text for an unknown email and a wrong password: no account probing.
    const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH)
    if (!user || !ok) throw new AuthenticationError('Invalid email or password')
    this.cache.set(user.id, { email: user.email, passwordHash: user.password_hash, proof })
    attempt.succeeded()
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

  /** Admits an attempt before its password is checked (emails compared in lower case), or throws the 429. */
  private admit(address: string | undefined, email: string | undefined): LoginAttempt {
    const a = this.throttle.begin(address, email?.toLowerCase())
    if (a.admitted) return a.attempt
    const seconds = Math.max(1, Math.ceil(a.retryAfterMs / 1000))
    throw new TooManyRequestsError(`Too many failed logins from this address or for this account: try again in ${seconds} s`, a.retryAfterMs)
  }
}

const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='

function stripHash(u: User & { password_hash?: string }): User {
  return { id: u.id, company_id: u.company_id, email: u.email, firstName: u.firstName, lastName: u.lastName }
}
