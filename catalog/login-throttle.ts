// Throttling of failed logins (issue 9, item 6), shared by HTTP Basic and MQTT CONNECT.
// Failures are counted per key (a source address `ip:<addr>`, an account `user:<name>`) in
// fixed windows; once a key reaches its limit inside the window, every attempt naming it is
// refused until the window ends, whatever the password. Counters live in a bounded LRU, so
// an attacker rotating addresses cannot grow memory without limit.
import { LRUCache } from 'lru-cache'

export interface LoginThrottleOptions {
  /** Failures per source address within one window before it is blocked (default 20). */
  maxPerAddress?: number
  /** Failures per account within one window before it is blocked (default 10). */
  maxPerAccount?: number
  /** Window length, ms (default 5 minutes). */
  windowMs?: number
  /** Keys remembered at most (default 100,000). */
  maxKeys?: number
  now?: () => number
}

interface Counter { failures: number; windowStart: number }

export class LoginThrottle {
  private readonly counters: LRUCache<string, Counter>
  private readonly windowMs: number
  private readonly now: () => number

  constructor (private readonly opts: LoginThrottleOptions = {}) {
    this.windowMs = opts.windowMs ?? 5 * 60_000
    this.now = opts.now ?? Date.now
    this.counters = new LRUCache({ max: opts.maxKeys ?? 100_000 })
  }

  /** Milliseconds the caller must wait before this attempt may be checked; 0 = go ahead. */
  retryAfterMs(address: string | undefined, account: string | undefined): number {
    let wait = 0
    for (const [key, limit] of this.keys(address, account)) {
      const c = this.current(key)
      if (c && c.failures >= limit) wait = Math.max(wait, c.windowStart + this.windowMs - this.now())
    }
    return wait
  }

  /** Records a failed attempt against the address and the account named in it. */
  failed(address: string | undefined, account: string | undefined): void {
    for (const [key] of this.keys(address, account)) {
      const c = this.current(key) ?? { failures: 0, windowStart: this.now() }
      c.failures++
      this.counters.set(key, c)
    }
  }

  /** A successful login clears the account's counter (not the address's: one good account must not unlock guessing at others). */
  succeeded(account: string | undefined): void {
    if (account !== undefined) this.counters.delete(`user:${account.toLowerCase()}`)
  }

  private current(key: string): Counter | undefined {
    const c = this.counters.get(key)
    if (c && this.now() - c.windowStart >= this.windowMs) {
      this.counters.delete(key)
      return undefined
    }
    return c
  }

  private keys(address: string | undefined, account: string | undefined): [string, number][] {
    const keys: [string, number][] = []
    if (address) keys.push([`ip:${address}`, this.opts.maxPerAddress ?? 20])
    if (account !== undefined) keys.push([`user:${account.toLowerCase()}`, this.opts.maxPerAccount ?? 10])
    return keys
  }
}
