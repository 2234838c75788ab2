// Throttling of logins (issue 9 item 6, issue 29 item 1), shared by HTTP Basic, bearer
// tokens, current_password and MQTT CONNECT.
//
// An attempt is admitted or refused *before* its password is checked, and an admitted one
// counts as a failure at once: it is taken back only when the password proves right. So a
// burst of 1,000 concurrent guesses gets no more checks than a limit allows, however fast
// it arrives (the old counter, raised after each check, let all of them through).
//
// Three counters, each in fixed windows (default 5 minutes):
//   - per (source address, account), `maxPerPair` (default 5): the back-off of one client
//     guessing one account; it never touches the account's other sources;
//   - per source address, `maxPerAddress` (default 20): one address guessing many accounts;
//   - per account, `maxPerAccount` (default 10), counted and enforced only for sources the
//     account has NOT logged in from before: many addresses guessing one account.
// A source address the account logged in from successfully (its "known" addresses, at most
// `knownPerAccount` per account, remembered for `knownMs`) is held only to the pair counter:
// another tenant flooding a gateway's username from elsewhere cannot lock the gateway out,
// while a distributed guesser still gets at most maxPerAccount checks per window.
// A success clears its pair counter only: the account's counter is not reset by the device's
// own reconnects (that would hand a guesser a fresh budget each time the device logs in).
//
// Account keys are compared exactly: the caller passes them as its login compares them
// (MQTT usernames are case-sensitive; emails are lower-cased by the HTTP caller). All state
// lives in bounded LRUs: rotating addresses or usernames cannot grow memory without limit.
// One process's view: in a cluster each node counts its own attempts (a guesser spreading
// over N nodes gets N times the budget; the known addresses of a device are per node too).
import { LRUCache } from 'lru-cache'

export interface LoginThrottleOptions {
  /** Failures per (source address, account) within one window before that pair is refused (default 5). */
  maxPerPair?: number
  /** Failures per source address within one window before it is refused (default 20). */
  maxPerAddress?: number
  /** Failures per account from addresses it never logged in from, within one window, before such addresses are refused (default 10). */
  maxPerAccount?: number
  /** Window length, ms (default 5 minutes). */
  windowMs?: number
  /** Addresses remembered per account as known (default 8). */
  knownPerAccount?: number
  /** How long a known address stays known after its last successful login, ms (default 30 days). */
  knownMs?: number
  /** Keys remembered at most (default 100,000). */
  maxKeys?: number
  now?: () => number
}

export const LOGIN_THROTTLE_DEFAULTS = { maxPerPair: 5, maxPerAddress: 20, maxPerAccount: 10, windowMs: 5 * 60_000 } as const

/** An admitted attempt: counted as failed until `succeeded()` says the password was right. */
export interface LoginAttempt {
  /** The password was right: takes the provisional failure back and remembers the address. */
  succeeded(): void
}

export type Admission =
  | { admitted: true; attempt: LoginAttempt }
  | { admitted: false; retryAfterMs: number; limit: 'pair' | 'address' | 'account' }

interface Counter { failures: number; windowStart: number }
type Limit = 'pair' | 'address' | 'account'

export class LoginThrottle {
  private readonly counters: LRUCache<string, Counter>
  private readonly known: LRUCache<string, Map<string, number>>
  /** Addresses any account logged in from, with the time of the last success (the MQTT pre-login gate's reserve). */
  private readonly knownAddresses: LRUCache<string, number>
  private readonly windowMs: number
  private readonly knownMs: number
  private readonly now: () => number

  constructor (private readonly opts: LoginThrottleOptions = {}) {
    this.windowMs = opts.windowMs ?? LOGIN_THROTTLE_DEFAULTS.windowMs
    this.knownMs = opts.knownMs ?? 30 * 86_400_000
    this.now = opts.now ?? Date.now
    this.counters = new LRUCache({ max: opts.maxKeys ?? 100_000 })
    this.known = new LRUCache({ max: opts.maxKeys ?? 100_000 })
    this.knownAddresses = new LRUCache({ max: opts.maxKeys ?? 100_000 })
  }

  /**
   * Admits or refuses one attempt before its credentials are checked. `account` undefined:
   * nothing names an account (a bearer token, malformed credentials): the address alone counts.
   */
  begin(address: string | undefined, account: string | undefined): Admission {
    const keys = this.keys(address, account)
    let refused: { wait: number; limit: Limit } | undefined
    for (const [key, max, limit] of keys) {
      const c = this.current(key)
      if (c && c.failures >= max) {
        const wait = c.windowStart + this.windowMs - this.now()
        if (!refused || wait > refused.wait) refused = { wait, limit }
      }
    }
    if (refused) return { admitted: false, retryAfterMs: refused.wait, limit: refused.limit }
    const counted = keys.map(([key]) => {
      const c = this.current(key) ?? { failures: 0, windowStart: this.now() }
      c.failures++
      this.counters.set(key, c)
      return { key, c }
    })
    let done = false
    return {
      admitted: true,
      attempt: {
        succeeded: () => {
          if (done) return
          done = true
          for (const { key, c } of counted) {
            if (key.startsWith('pair:')) this.counters.delete(key)
            // Only the increment of this attempt, and only while its window still holds it.
            else if (this.counters.peek(key) === c && c.failures > 0) c.failures--
          }
          if (address !== undefined && account !== undefined) this.remember(account, address)
        },
      },
    }
  }

  /** Whether the account logged in from this address before (and not too long ago). */
  isKnown(account: string, address: string): boolean {
    const at = this.known.get(account)?.get(address)
    return at !== undefined && this.now() - at < this.knownMs
  }

  /** Whether any account logged in from this address (and not too long ago). */
  isKnownAddress(address: string): boolean {
    const at = this.knownAddresses.get(address)
    return at !== undefined && this.now() - at < this.knownMs
  }

  private remember(account: string, address: string): void {
    this.knownAddresses.set(address, this.now())
    let m = this.known.get(account)
    if (!m) this.known.set(account, m = new Map())
    m.delete(address) // re-inserted last: the map's order is least recently used first
    m.set(address, this.now())
    const max = this.opts.knownPerAccount ?? 8
    while (m.size > max) m.delete(m.keys().next().value as string)
  }

  private current(key: string): Counter | undefined {
    const c = this.counters.get(key)
    if (c && this.now() - c.windowStart >= this.windowMs) {
      this.counters.delete(key)
      return undefined
    }
    return c
  }

  private keys(address: string | undefined, account: string | undefined): [string, number, Limit][] {
    const o = this.opts
    const known = address !== undefined && account !== undefined && this.isKnown(account, address)
    const keys: [string, number, Limit][] = []
    if (address !== undefined && account !== undefined) keys.push([`pair:${address}\0${account}`, o.maxPerPair ?? LOGIN_THROTTLE_DEFAULTS.maxPerPair, 'pair'])
    if (known) return keys
    if (address !== undefined) keys.push([`ip:${address}`, o.maxPerAddress ?? LOGIN_THROTTLE_DEFAULTS.maxPerAddress, 'address'])
    if (account !== undefined) keys.push([`user:${account}`, o.maxPerAccount ?? LOGIN_THROTTLE_DEFAULTS.maxPerAccount, 'account'])
    return keys
  }
}
