// Change notifications of the PostgreSQL adapter (catalog/port.ts, "Changes"): NOTIFY on the
// channel `lintel_changes` with `{topic, payload}` as JSON, heard by every process through
// one dedicated connection that LISTENs. A NOTIFY made inside a transaction is delivered at
// its COMMIT (and not at all after a ROLLBACK), which is exactly "after the write". When the
// listening connection breaks it is opened again (backoff up to 2 s), and since messages
// may have been missed meanwhile every subscriber hears `{ reconnected: true }`.
import pg from 'pg'
import type { ChangePayload, ChangesPort } from '../port.ts'
import { encodeChange, Subscribers } from '../changes.ts'
import type { Sql } from './sql.ts'

export const CHANNEL = 'lintel_changes'

export class PgChanges implements ChangesPort {
  private readonly subscribers = new Subscribers()
  private client: pg.Client | undefined
  private closed = false
  private retry: NodeJS.Timeout | undefined
  /** Resolves once the first LISTEN is in place: nothing published after open is missed. */
  readonly ready: Promise<void>

  constructor (private readonly config: pg.ClientConfig, private readonly sql: Sql, private readonly onError: (err: Error) => void = () => {}) {
    this.ready = this.listen(0)
  }

  async publish(topic: string, payload: ChangePayload = {}): Promise<void> {
    await this.sql.run('SELECT pg_notify(?, ?)', CHANNEL, encodeChange(topic, payload))
  }

  subscribe(topic: string, fn: (payload: ChangePayload) => void): () => void {
    return this.subscribers.add(topic, fn)
  }

  /** A port whose publish goes through `sql` (a transaction's: delivered at its commit). */
  within(sql: Sql): ChangesPort {
    return { publish: (topic, payload = {}) => sql.run('SELECT pg_notify(?, ?)', CHANNEL, encodeChange(topic, payload)).then(() => {}), subscribe: (t, fn) => this.subscribe(t, fn) }
  }

  private async listen(attempt: number): Promise<void> {
    const client = new pg.Client(this.config)
    client.on('notification', (n) => {
      if (n.channel !== CHANNEL || !n.payload) return
      try {
        const { topic, payload } = JSON.parse(n.payload) as { topic: string; payload: ChangePayload }
        this.subscribers.deliver(topic, payload)
      } catch { /* not ours */ }
    })
    const lost = (err?: Error) => {
      if (this.client !== client) return
      this.client = undefined
      client.end().catch(() => {})
      if (this.closed) return
      if (err) this.onError(err)
      this.later(0)
    }
    client.on('error', lost)
    client.on('end', () => lost())
    try {
      await client.connect()
      await client.query(`LISTEN ${CHANNEL}`)
    } catch (err) {
      client.end().catch(() => {})
      if (this.closed) return
      if (attempt === 0) throw err // the first connection fails the open
      this.onError(err as Error)
      this.later(attempt)
      return
    }
    if (this.closed) { await client.end().catch(() => {}); return }
    this.client = client
    if (attempt > 0) this.subscribers.deliverAll({ reconnected: true })
  }

  private later(attempt: number): void {
    const wait = Math.min(2000, 100 * 2 ** attempt)
    this.retry = setTimeout(() => { this.listen(attempt + 1).catch(() => {}) }, wait)
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.retry)
    const c = this.client
    this.client = undefined
    await c?.end().catch(() => {})
  }
}
