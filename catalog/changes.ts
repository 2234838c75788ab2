// Change notifications between the processes that share a catalog (catalog/port.ts,
// `ChangesPort`): the in-process emitter of the SQLite adapter (one process owns the file),
// the topics the adapters announce themselves, and the wrapping that announces them after
// the write is committed. The PostgreSQL adapter carries the same messages over
// LISTEN/NOTIFY (catalog/postgres/changes.ts).
import type { ChangePayload, ChangesPort } from './port.ts'

/** Topic announced by the adapters when a login or token may have stopped being valid. */
export const CREDENTIALS = 'credentials'

/**
 * Topic announced when what the workers run may have changed: a virtual datapoint's or an
 * alert's status (run/stop, enable/disable, failures), one removed, or a project deleted.
 * Workers in other processes reconcile on it (engine/worker.ts).
 */
export const RUN_STATE = 'run-state'

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

type Announced = Record<string, Record<string, (args: unknown[]) => ChangePayload>>

/** Writes of the port that end logins or tokens, and the payload each announces. */
const CREDENTIAL_WRITES: Announced = {
  users: { update: (a) => ({ userId: a[0] as number }), delete: (a) => ({ userId: a[0] as number }) },
  tokens: { revoke: () => ({}) },
  companies: { delete: () => ({}) },
}

/** Writes of the port that change what workers run, and the payload each announces. */
const RUN_STATE_WRITES: Announced = {
  virtualDatapoints: { setStatus: (a) => ({ vdpId: a[0] as number }), remove: (a) => ({ vdpId: a[0] as number }) },
  alerts: { setStatus: (a) => ({ alertId: a[0] as number }), remove: (a) => ({ alertId: a[0] as number }) },
  projects: { delete: (a) => ({ projectId: a[0] as number }) },
}

/**
 * Wraps the credential writes of a port's repositories so that each announces CREDENTIALS,
 * and the run-state writes so that each announces RUN_STATE, through `announce` once it has
 * succeeded (inside a transaction, the adapter holds the
 * announcement back until the commit).
 */
export function announcingCredentials<P extends Record<string, any>>(repos: P, announce: (topic: string, payload: ChangePayload) => Promise<void> | void): P {
  const out: Record<string, any> = { ...repos }
  for (const [topic, writes] of [[CREDENTIALS, CREDENTIAL_WRITES], [RUN_STATE, RUN_STATE_WRITES]] as const) {
    for (const [repo, methods] of Object.entries(writes)) {
      const wrapped = { ...out[repo] }
      for (const [name, payload] of Object.entries(methods)) {
        const m = out[repo][name] as (...a: unknown[]) => Promise<unknown>
        wrapped[name] = async (...args: unknown[]) => {
          const result = await m(...args)
          await announce(topic, payload(args))
          return result
        }
      }
      out[repo] = wrapped
    }
  }
  return out as P
}
