// Change notifications between the processes that share a catalog (catalog/port.ts,
// `ChangesPort`): the in-process emitter of the SQLite adapter (one process owns the file),
// the topics the adapters announce themselves, and the wrapping that announces them after
// the write is committed. The PostgreSQL adapter carries the same messages over
// LISTEN/NOTIFY (catalog/postgres/changes.ts).
import type { ChangePayload, ChangesPort } from './port.ts'

/** Topic announced by the adapters when a login or token may have stopped being valid. */
export const CREDENTIALS = 'credentials'

/** Payloads travel as JSON in one notification; PostgreSQL's limit is 8000 bytes. */
export const MAX_PAYLOAD_BYTES = 4000

export function encodeChange(topic: string, payload: ChangePayload): string {
  if (!/^[a-z][a-z0-9._-]{0,63}$/.test(topic)) throw new Error(`Bad change topic '${topic}'`)
  const text = JSON.stringify({ topic, payload })
  if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) throw new Error(`Change payload of '${topic}' over ${MAX_PAYLOAD_BYTES} bytes`)
  return text
}

type Listener = (payload: ChangePayload) => void

/** Subscribers by topic; a throwing subscriber does not stop the others. */
export class Subscribers {
  private readonly byTopic = new Map<string, Set<Listener>>()

  add(topic: string, fn: Listener): () => void {
    let set = this.byTopic.get(topic)
    if (!set) this.byTopic.set(topic, set = new Set())
    set.add(fn)
    return () => { set.delete(fn) }
  }

  deliver(topic: string, payload: ChangePayload): void {
    for (const fn of this.byTopic.get(topic) ?? []) {
      try { fn(payload) } catch { /* a subscriber's own fault; the others still hear it */ }
    }
  }

  /** Every subscriber of every topic (after a lost connection: anything may have changed). */
  deliverAll(payload: ChangePayload): void {
    for (const topic of this.byTopic.keys()) this.deliver(topic, payload)
  }
}

/** The SQLite adapter's changes: one process, delivered on the next turn of the event loop. */
export class LocalChanges implements ChangesPort {
  private readonly subscribers = new Subscribers()

  async publish(topic: string, payload: ChangePayload = {}): Promise<void> {
    encodeChange(topic, payload) // the same limits as across processes
    setImmediate(() => this.subscribers.deliver(topic, payload))
  }

  subscribe(topic: string, fn: Listener): () => void {
    return this.subscribers.add(topic, fn)
  }
}

/** Writes of the port that end logins or tokens, and the payload each announces. */
const CREDENTIAL_WRITES: Record<string, Record<string, (args: unknown[]) => ChangePayload>> = {
  users: { update: (a) => ({ userId: a[0] as number }), delete: (a) => ({ userId: a[0] as number }) },
  tokens: { revoke: () => ({}) },
  companies: { delete: () => ({}) },
}

/**
 * Wraps the credential writes of a port's repositories so that each announces CREDENTIALS
 * through `announce` once it has succeeded (inside a transaction, the adapter holds the
 * announcement back until the commit).
 */
export function announcingCredentials<P extends Record<string, any>>(repos: P, announce: (topic: string, payload: ChangePayload) => Promise<void> | void): P {
  const out: Record<string, any> = { ...repos }
  for (const [repo, methods] of Object.entries(CREDENTIAL_WRITES)) {
    const wrapped = { ...repos[repo] }
    for (const [name, payload] of Object.entries(methods)) {
      const m = repos[repo][name] as (...a: unknown[]) => Promise<unknown>
      wrapped[name] = async (...args: unknown[]) => {
        const result = await m(...args)
        await announce(CREDENTIALS, payload(args))
        return result
      }
    }
    out[repo] = wrapped
  }
  return out as P
}
