// Probing of other companies' user emails and MQTT usernames through "already exists"
// (issue 29 item 5). Emails and MQTT usernames are unique across the installation (a login
// names no company), so a create with a name another company holds must fail, and its 409
// tells that the name exists. Each company gets a budget of such answers per window (default
// 20 per hour); once it is spent, every create and rename of a user or MQTT account by that
// company answers 429 with Retry-After until the window ends, before the name is looked up.
// Refusing them all (not only the conflicting ones) matters: if only conflicts turned into
// 429 while new names were still created, 429 against 201 would disclose the same thing.
// A company can only spend its own budget: it never limits another company.
import { LRUCache } from 'lru-cache'
import { ConflictError, TooManyRequestsError } from '../core/errors.ts'

export interface ExistsProbeOptions {
  /** "Already exists" answers per company within one window (default 20). */
  max?: number
  /** Window, ms (default 1 hour). */
  windowMs?: number
  now?: () => number
}

export class ExistsProbeLimit {
  private readonly spent = new LRUCache<number, { n: number; start: number }>({ max: 100_000 })
  private readonly max: number
  private readonly windowMs: number
  private readonly now: () => number

  constructor (opts: ExistsProbeOptions = {}) {
    this.max = opts.max ?? 20
    this.windowMs = opts.windowMs ?? 3_600_000
    this.now = opts.now ?? Date.now
  }

  /**
   * Runs a create or rename of a unique name for a company: refused with 429 while its budget
   * is spent; a 409 it answers spends one unit.
   */
  async guard<T>(companyId: number, what: string, run: () => Promise<T>): Promise<T> {
    const cur = this.current(companyId)
    if (cur && cur.n >= this.max) {
      const wait = cur.start + this.windowMs - this.now()
      throw new TooManyRequestsError(`Too many ${what} that already exist were tried by this company (${this.max} per ${this.windowMs / 60_000} min): try again in ${Math.max(1, Math.ceil(wait / 1000))} s`, wait)
    }
    try {
      return await run()
    } catch (err) {
      if (err instanceof ConflictError) {
        const c = this.current(companyId) ?? { n: 0, start: this.now() }
        c.n++
        this.spent.set(companyId, c)
      }
      throw err
    }
  }

  private current(companyId: number) {
    const c = this.spent.get(companyId)
    if (c && this.now() - c.start >= this.windowMs) {
      this.spent.delete(companyId)
      return undefined
    }
    return c
  }
}
