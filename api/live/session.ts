// One live WebSocket (issue 33; protocol/live-messages.ts): its login, its subscriptions per
// project, the resume from the store, and its bounded send queue. The hub (hub.ts) routes
// observations here; this decides what of them the caller may see, with the TagAuths of the
// roles granting endpoint 190, as they are now.
//
// Resume without hole or duplicate: the subscription is in place (live observations of the
// datapoints to fill are buffered) before the store is read, so everything stored after
// `since` is in the read, in the buffer, or in both; a buffered observation the read already
// gave (same time and value) is dropped. Observations are durable before the bus or the
// channel carries them, so the read sees every one that was published before it.
import type { Catalog } from '../../catalog/index.ts'
import type { User } from '../../catalog/types.ts'
import { ForbiddenError, LintelError, NotFoundError } from '../../core/errors.ts'
import { canAccessDatapoint } from '../../core/tag-auth.ts'
import type { TimeseriesStore } from '../../engine/store/port.ts'
import {
  errorFrame, LIVE_CLOSE, liveFrame, LiveMessageError, observationsFrame, parseClientMessage, revokedFrame, subscribedFrame, unsubscribedFrame,
  type LivePoint, type SubscribeMessage, type UnsubscribeMessage,
} from '../../protocol/live-messages.ts'
import { Permissions, type DatapointFilter } from '../permissions.ts'
import { deniedText, endpoint } from '../registry.ts'
import type { SeriesInfo } from './directory.ts'

/** The endpoint of the live subscriptions: its grant and its TagAuths decide what a socket gets. */
export const LIVE_ENDPOINT = 190
/** Observations read per page of a resume. */
const FILL_PAGE = 2_000

/** What a session needs of the socket (a `ws` WebSocket). */
export interface LiveSocket {
  /** A Buffer is sent as it is (with `binary: false`, as a text frame): no encoding per socket. */
  send(data: string | Buffer, opts: { binary: boolean }): void
  readonly bufferedAmount: number
  close(code: number, reason: string): void
  terminate(): void
  ping(): void
}

/** What a session needs of its hub. */
export interface SessionHost {
  readonly catalog: Catalog
  readonly store: Pick<TimeseriesStore, 'read'>
  readonly limits: { maxQueueBytes: number; maxFill: number }
  watch(projectId: number, s: LiveSession): Promise<void>
  unwatch(projectId: number, s: LiveSession): void
  named(projectId: number, dataPointID: string): SeriesInfo | undefined
  ofProject(projectId: number): SeriesInfo[]
  closed(s: LiveSession, why: 'overflow' | 'login' | 'other'): void
  /** An unexpected failure of a message (the client got an INTERNAL error frame). */
  failed(err: unknown): void
}

class Subscription {
  all = false
  alerts = false
  readonly names = new Set<string>()
  /** Whether a series is delivered, cached until roles or tags change. */
  readonly verdict = new Map<number, boolean>()
  /** Series being resumed from the store: their live observations wait here. */
  readonly filling = new Map<number, LivePoint[]>()
  constructor (readonly projectId: number, public filter: DatapointFilter) {}

  wants(info: SeriesInfo): boolean {
    let v = this.verdict.get(info.id)
    if (v === undefined) {
      v = (this.all || this.names.has(info.dataPointID)) && canAccessDatapoint(this.filter, info, 'read')
      this.verdict.set(info.id, v)
    }
    return v
  }
}

export class LiveSession {
  private readonly subs = new Map<number, Subscription>()
  private chain: Promise<void> = Promise.resolve()
  private ended = false
  /** Answered the last heartbeat ping. */
  alive = true

  constructor (
    private readonly host: SessionHost,
    private readonly socket: LiveSocket,
    readonly user: User,
    /** The bearer token of the upgrade, or the password hash of a Basic login (both re-checked on credential changes). */
    readonly login: { token: string } | { passwordHash: string },
    private permissions: Permissions,
  ) {}

  get isOpen(): boolean { return !this.ended }

  projects(): number[] { return [...this.subs.keys()] }

  /** A client text frame: handled in order, one at a time. */
  receive(text: string): void {
    this.chain = this.chain.then(() => this.handle(text))
  }

  private async handle(text: string): Promise<void> {
    if (this.ended) return
    let ref: string | undefined
    try {
      const m = parseClientMessage(text)
      ref = m.ref
      if (m.type === 'subscribe') await this.subscribe(m)
      else this.unsubscribe(m)
    } catch (err) {
      if (err instanceof LiveMessageError) this.send(errorFrame('INVALID_INPUT', err.message, err.ref))
      else if (err instanceof LintelError) this.send(errorFrame(err.code, err.message, ref))
      else {
        this.send(errorFrame('INTERNAL', 'The subscription failed; the server logged why', ref))
        this.host.failed(err)
      }
    }
  }

  private async subscribe(m: SubscribeMessage): Promise<void> {
    const pid = m.project_id
    await this.host.catalog.projects.getInCompany(pid, this.user.company_id) // another company's: 404 as over HTTP
    if (!this.permissions.allowsProject(LIVE_ENDPOINT, pid)) throw new ForbiddenError(deniedText(endpoint(LIVE_ENDPOINT)), 'ENDPOINT_NOT_GRANTED')
    await this.host.watch(pid, this)
    if (this.ended) return
    // From here to the fill targets' buffers nothing awaits: no live observation slips between.
    const sub = this.subs.get(pid) ?? new Subscription(pid, this.permissions.datapointFilter(LIVE_ENDPOINT, pid))
    this.subs.set(pid, sub)
    if (m.datapoints === 'all') sub.all = true
    else for (const id of m.datapoints) sub.names.add(id)
    sub.alerts ||= m.alerts
    sub.verdict.clear()
    const named = m.datapoints === 'all' ? undefined : m.datapoints.flatMap((id) => {
      const info = this.host.named(pid, id)
      return info && sub.wants(info) ? [info] : []
    })
    const targets = m.since === undefined ? [] : (named ?? this.host.ofProject(pid).filter((i) => sub.wants(i)))
      .filter((i) => !(m.since instanceof Map) || m.since.has(i.dataPointID))
    for (const t of targets) if (!sub.filling.has(t.id)) sub.filling.set(t.id, [])
    this.send(subscribedFrame(pid, named ? named.map((i) => i.dataPointID) : 'all', sub.alerts, m.ref))
    if (m.since === undefined) return
    for (const t of targets) await this.fill(sub, t, m.since instanceof Map ? m.since.get(t.dataPointID)! : m.since)
    this.send(liveFrame(pid))
  }

  /** Sends what the store holds after `since`, then what arrived meanwhile that the read did not give. */
  private async fill(sub: Subscription, info: SeriesInfo, since: number): Promise<void> {
    const seen = new Map<number, number>()
    let start = since + 1
    for (;;) {
      if (this.ended || this.subs.get(sub.projectId) !== sub) return
      const page = await this.host.store.read(info.id, { start, limit: FILL_PAGE, from: 'first' })
      for (const p of page) seen.set(p.time, p.value)
      if (page.length > 0 && sub.wants(info)) this.send(observationsFrame(sub.projectId, info.dataPointID, page, true))
      await this.drained()
      if (page.length < FILL_PAGE) break
      start = page[page.length - 1].time + 1
      if (seen.size >= this.host.limits.maxFill) {
        this.send(errorFrame('TOO_LARGE', `The resume of '${info.dataPointID}' holds more than ${this.host.limits.maxFill} observations after since: read them with GET /v2/datapoint/timeseries, then subscribe with a later since; live observations follow`))
        break
      }
    }
    const waiting = sub.filling.get(info.id) ?? []
    sub.filling.delete(info.id)
    const rest = waiting.filter((p) => seen.get(p.time) !== p.value)
    if (rest.length > 0 && sub.wants(info)) this.send(observationsFrame(sub.projectId, info.dataPointID, rest))
  }

  private unsubscribe(m: UnsubscribeMessage): void {
    const sub = this.subs.get(m.project_id)
    if (!sub) throw new NotFoundError(`No subscription of project ${m.project_id} on this connection`)
    if (m.datapoints === undefined && m.alerts === undefined) {
      this.drop(sub)
      this.send(unsubscribedFrame(m.project_id, sub.all ? 'all' : [...sub.names], m.ref))
      return
    }
    if (m.datapoints && sub.all) throw new ForbiddenError('A subscription of all datapoints is left as a whole: unsubscribe the project')
    for (const id of m.datapoints ?? []) sub.names.delete(id)
    if (m.alerts === false) sub.alerts = false
    sub.verdict.clear()
    if (!sub.all && sub.names.size === 0 && !sub.alerts) this.drop(sub)
    this.send(unsubscribedFrame(m.project_id, m.datapoints ?? [], m.ref))
  }

  private drop(sub: Subscription): void {
    this.subs.delete(sub.projectId)
    this.host.unwatch(sub.projectId, this)
  }

  /** Stored observations of one series of a watched project (`frame`: their UTF-8 bytes, built once for all sockets). */
  offer(info: SeriesInfo, points: readonly LivePoint[], frame: () => Buffer): void {
    const sub = this.subs.get(info.project_id)
    if (!sub || !sub.wants(info)) return
    const waiting = sub.filling.get(info.id)
    if (!waiting) return this.send(frame())
    for (const p of points) waiting.push(p)
    if (waiting.length > this.host.limits.maxFill) this.overflow()
  }

  /** A stored alert event on a datapoint of the project. */
  offerAlert(info: SeriesInfo, frame: () => Buffer): void {
    const sub = this.subs.get(info.project_id)
    if (sub?.alerts && canAccessDatapoint(sub.filter, info, 'read')) this.send(frame())
  }

  /** Roles may have changed: the grant and the TagAuths of every subscription again. */
  async rolesChanged(): Promise<void> {
    this.permissions = new Permissions(await this.host.catalog.roles.rolesOfUser(this.user.id))
    for (const sub of [...this.subs.values()]) {
      if (!this.permissions.allowsProject(LIVE_ENDPOINT, sub.projectId)) {
        this.drop(sub)
        this.send(errorFrame('ENDPOINT_NOT_GRANTED', deniedText(endpoint(LIVE_ENDPOINT))))
        this.send(unsubscribedFrame(sub.projectId, sub.all ? 'all' : [...sub.names]))
        continue
      }
      sub.filter = this.permissions.datapointFilter(LIVE_ENDPOINT, sub.projectId)
      this.recheck(sub, this.host.ofProject(sub.projectId))
    }
  }

  /** A datapoint's tags changed (or it is gone: `info` null). */
  tagsChanged(series: number, info: SeriesInfo | null): void {
    for (const sub of this.subs.values()) {
      if (!sub.verdict.has(series)) continue
      if (info === null) sub.verdict.delete(series)
      else this.recheck(sub, [info])
    }
  }

  /** Re-decides the series; one delivered before and not now gets a `revoked` frame. */
  private recheck(sub: Subscription, infos: readonly SeriesInfo[]): void {
    const before = new Map(sub.verdict)
    sub.verdict.clear()
    for (const info of infos) if (before.get(info.id) === true && !sub.wants(info)) this.send(revokedFrame(sub.projectId, info.dataPointID))
  }

  /** A text frame: a string, or the UTF-8 bytes the hub built once for every socket of a batch. */
  send(data: string | Buffer): void {
    if (this.ended) return
    this.socket.send(data, { binary: false })
    if (this.socket.bufferedAmount > this.host.limits.maxQueueBytes) this.overflow()
  }

  /** Waits while the socket's queue is over half its bound (a resume paces itself by the reader). */
  private async drained(): Promise<void> {
    while (!this.ended && this.socket.bufferedAmount > this.host.limits.maxQueueBytes / 2) await new Promise((r) => setTimeout(r, 5))
  }

  private overflow(): void {
    this.end(LIVE_CLOSE.SEND_QUEUE_OVERFLOW, 'send queue overflow: read faster, or reconnect with since', 'overflow')
  }

  /** Closes with a documented code; a reader that does not take the close frame is cut after 5 s. */
  end(code: number, reason: string, why: 'overflow' | 'login' | 'other' = 'other'): void {
    if (this.ended) return
    this.ended = true
    for (const sub of this.subs.values()) this.host.unwatch(sub.projectId, this)
    this.subs.clear()
    this.host.closed(this, why)
    try { this.socket.close(code, reason) } catch { /* already closing */ }
    setTimeout(() => this.socket.terminate(), 5_000).unref()
  }

  /** The heartbeat: a socket that did not answer the previous ping is cut. */
  heartbeat(): void {
    if (this.ended) return
    if (!this.alive) {
      this.socket.terminate()
      return this.gone()
    }
    this.alive = false
    this.socket.ping()
  }

  /** The socket closed from the other side. */
  gone(): void {
    if (this.ended) return
    this.ended = true
    for (const sub of this.subs.values()) this.host.unwatch(sub.projectId, this)
    this.subs.clear()
    this.host.closed(this, 'other')
  }
}
