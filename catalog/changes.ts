// Change notifications between the processes that share a catalog (catalog/port.ts,
// `ChangesPort`): the topics the adapters announce themselves, and the wrapping that announces them after
// the write is committed. The PostgreSQL adapter carries the same messages over
// LISTEN/NOTIFY (catalog/postgres/changes.ts), the SQLite adapter in process (one process
// owns the file; catalog/sqlite/changes.ts).
import type { ChangePayload } from './port.ts'

/** Topic announced by the adapters when a login or token may have stopped being valid. */
export const CREDENTIALS = 'credentials'

/**
 * Topic announced by the adapters when datapoint tags changed: `{ datapoint: id }` (its tags
 * changed; `removed: true` when it was removed), `{ project: id }` (many of the project's were removed), or
 * `{ all: true }` (many removed at once): what the MQTT reach cache keeps current with.
 */
export const DATAPOINT_TAGS = 'datapoint-tags'

/**
 * Topic announced when what the workers run may have changed: a virtual datapoint's or an
 * alert's status (run/stop, enable/disable, failures), one removed, or a project deleted.
 * Workers in other processes reconcile on it (engine/worker.ts).
 */
export const RUN_STATE = 'run-state'

/**
 * Topic announced when a role, its TagAuths or who holds it changed (`{ role: id }`, or
 * `{ userId: id }` for an assignment): what the live subscriptions re-check their reach with.
 */
export const ROLES = 'roles'

/** Payloads travel as JSON in one notification; PostgreSQL's limit is 8000 bytes. */
export const MAX_PAYLOAD_BYTES = 4000

export function encodeChange(topic: string, payload: ChangePayload): string {
  if (!/^[a-z][a-z0-9._-]{0,63}$/.test(topic)) throw new Error(`Bad change topic '${topic}'`)
  const text = JSON.stringify({ topic, payload })
  if (Buffer.byteLength(text) > MAX_PAYLOAD_BYTES) throw new Error(`Change payload of '${topic}' over ${MAX_PAYLOAD_BYTES} bytes`)
  return text
}

export type Listener = (payload: ChangePayload) => void

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

/** A write's announcements: [topic, payload] pairs from its arguments and result. */
type Announcements = (args: any[], result: any) => [string, ChangePayload][]

/** Removals of more datapoints than this announce `{ all: true }` instead of one change each. */
export const MAX_REMOVALS_ANNOUNCED = 50

const tagsOf = (payload: ChangePayload): [string, ChangePayload] => [DATAPOINT_TAGS, payload]

const runState = (payload: ChangePayload): [string, ChangePayload] => [RUN_STATE, payload]

/**
 * Writes of the port that end logins or tokens (CREDENTIALS), change what workers run
 * (RUN_STATE), change datapoint tags (DATAPOINT_TAGS) or roles (ROLES), and what each announces.
 */
const ANNOUNCED_WRITES: Record<string, Record<string, Announcements>> = {
  users: { update: (a) => [[CREDENTIALS, { userId: a[0] }]], delete: (a) => [[CREDENTIALS, { userId: a[0] }]] },
  tokens: { revoke: () => [[CREDENTIALS, {}]] },
  companies: { delete: (_a, r: { projectIds: number[] }) => [[CREDENTIALS, {}], ...r.projectIds.map((project) => tagsOf({ project }))] },
  projects: { delete: (a) => [runState({ projectId: a[0] }), tagsOf({ project: a[0] })] },
  virtualDatapoints: { setStatus: (a) => [runState({ vdpId: a[0] })], remove: (a) => [runState({ vdpId: a[0] })] },
  alerts: { setStatus: (a) => [runState({ alertId: a[0] })], remove: (a) => [runState({ alertId: a[0] })] },
  datapoints: {
    setTag: (a) => [tagsOf({ datapoint: a[0] })],
    remove: (a) => ((a[0] as number[]).length > MAX_REMOVALS_ANNOUNCED ? [tagsOf({ all: true })] : (a[0] as number[]).map((datapoint) => tagsOf({ datapoint, removed: true }))),
    removeSomeOfProject: (a, r: number[]) => (r.length > 0 ? [tagsOf({ project: a[0] })] : []),
  },
  roles: {
    update: (a) => [[ROLES, { role: a[0] }]], delete: (a) => [[ROLES, { role: a[0] }]],
    addTagAuth: (a) => [[ROLES, { role: a[0] }]], removeTagAuth: (a) => [[ROLES, { role: a[0] }]],
    assign: (a) => [[ROLES, { userId: a[0] }]], unassign: (a) => [[ROLES, { userId: a[0] }]],
  },
  entityTags: { replaceTags: (a) => (a[0] === 'datapoint' ? [tagsOf({ datapoint: a[1] })] : []) },
}

/**
 * Wraps the announced writes of a port's repositories (ANNOUNCED_WRITES) so that each
 * announces its changes through `announce` once it has succeeded (inside a transaction, the
 * adapter holds the announcements back until the commit).
 */
export function announcingChanges<P extends Record<string, any>>(repos: P, announce: (topic: string, payload: ChangePayload) => Promise<void> | void): P {
  const out: Record<string, any> = { ...repos }
  for (const [repo, methods] of Object.entries(ANNOUNCED_WRITES)) {
    const wrapped = { ...repos[repo] }
    for (const [name, announcements] of Object.entries(methods)) {
      const m = repos[repo][name] as (...a: unknown[]) => Promise<unknown>
      wrapped[name] = async (...args: unknown[]) => {
        const result = await m(...args)
        for (const [topic, payload] of announcements(args, result)) await announce(topic, payload)
        return result
      }
    }
    out[repo] = wrapped
  }
  return out as P
}
