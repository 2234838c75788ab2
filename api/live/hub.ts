// The live hub of one API process (issue 33): the sockets (session.ts), the projects they
// watch, and the routing of what the feed (engine/live/feed.ts) carries to them. An
// observations frame is built once per datapoint batch, encoded to UTF-8 once, and the same
// Buffer is written to every socket that gets it (a string would be measured and encoded again
// per socket by ws).
// The feed's listener only walks the batch and writes to sockets: it never waits for a reader,
// so a slow subscriber cannot hold ingest back (its own queue overflows and it is closed).
//
// Kept current from the catalog's change notifications (every node, within a second):
// `credentials` (a token revoked, a password or email changed, a user deleted) closes the
// sockets of logins that ended, 4401; `roles` re-reads the roles of every connected user;
// `datapoint-tags` reloads the datapoint and re-decides it for every socket.
import type { AlertEvent } from '../../catalog/alerts.ts'
import { CREDENTIALS, DATAPOINT_TAGS, ROLES } from '../../catalog/changes.ts'
import type { Catalog } from '../../catalog/index.ts'
import type { ChangePayload } from '../../catalog/port.ts'
import type { LiveFeed } from '../../engine/live/feed.ts'
import type { Observation, TimeseriesStore } from '../../engine/store/port.ts'
import { alertFrame, LIVE_CLOSE, observationsFrame, type LivePoint } from '../../protocol/live-messages.ts'
import { SeriesDirectory, type SeriesInfo } from './directory.ts'
import type { LiveSession, SessionHost } from './session.ts'

export interface LiveLimits {
  /** Bytes a socket may have queued before it is closed with 4408 (LINTEL_LIVE_QUEUE_KB; default 1 MiB). */
  maxQueueBytes: number
  /** Observations one datapoint's resume may send, and the live ones it may hold meanwhile (default 100,000). */
  maxFill: number
}

export const DEFAULT_LIVE_LIMITS: LiveLimits = { maxQueueBytes: 1024 * 1024, maxFill: 100_000 }

export interface LiveHubOptions {
  catalog: Catalog
  store: Pick<TimeseriesStore, 'read'>
  feed: LiveFeed
  limits?: Partial<LiveLimits>
  onError?: (err: unknown) => void
  /** How often expired bearer tokens are looked for, ms (default 5 s; revocations arrive at once). */
  sweepMs?: number
}

interface AlertInfo { project_id: number; series: number }

export class LiveHub implements SessionHost {
  readonly catalog: Catalog
  readonly store: Pick<TimeseriesStore, 'read'>
  readonly limits: LiveLimits
  private readonly directory: SeriesDirectory
  private readonly sessions = new Set<LiveSession>()
  private readonly watchers = new Map<number, Set<LiveSession>>()
  /** Observations of series being looked up, in arrival order. */
  private readonly pending = new Map<number, LivePoint[]>()
  private readonly alertInfo = new Map<number, AlertInfo | null>()
  private alertChain = Promise.resolve()
  private readonly stops: (() => void)[] = []
  private readonly counters = { sessions_opened: 0, closed_overflow: 0, closed_login: 0, frames: 0 }

  constructor (private readonly o: LiveHubOptions) {
    this.catalog = o.catalog
    this.store = o.store
    this.limits = { ...DEFAULT_LIVE_LIMITS, ...o.limits }
    this.directory = new SeriesDirectory(o.catalog)
    const onError = o.onError ?? (() => {})
    this.stops.push(
      o.feed.observations((batch, project) => this.route(batch, project)),
      o.feed.alerts((events) => this.routeAlerts(events)),
      o.feed.interrupted(() => { for (const s of [...this.sessions]) s.end(LIVE_CLOSE.SOURCE_INTERRUPTED, 'the live source was interrupted: reconnect with since') }),
      o.catalog.changes.subscribe(CREDENTIALS, (p) => { this.checkLogins(p).catch(onError) }),
      o.catalog.changes.subscribe(ROLES, () => { for (const s of this.sessions) s.rolesChanged().catch(onError) }),
      o.catalog.changes.subscribe(DATAPOINT_TAGS, (p) => { this.tagsChanged(p).catch(onError) }),
    )
    const sweep = setInterval(() => { this.checkLogins({ tokens: true }).catch(onError) }, o.sweepMs ?? 5_000)
    sweep.unref()
    this.stops.push(() => clearInterval(sweep))
  }

  add(s: LiveSession): void {
    this.sessions.add(s)
    this.counters.sessions_opened++
  }

  heartbeat(): void {
    for (const s of [...this.sessions]) s.heartbeat()
  }

  failed(err: unknown): void {
    this.o.onError?.(err)
  }

  metrics(): Record<string, number> {
    return { sessions: this.sessions.size, projects_watched: this.watchers.size, ...this.counters }
  }

  async watch(projectId: number, s: LiveSession): Promise<void> {
    await this.directory.load(projectId)
    await this.o.feed.watch(projectId)
    let set = this.watchers.get(projectId)
    if (!set) this.watchers.set(projectId, set = new Set())
    set.add(s)
  }

  unwatch(projectId: number, s: LiveSession): void {
    const set = this.watchers.get(projectId)
    if (!set?.delete(s) || set.size > 0) return
    this.watchers.delete(projectId)
    this.o.feed.unwatch(projectId)
    this.directory.forget(projectId)
  }

  named(projectId: number, dataPointID: string): SeriesInfo | undefined { return this.directory.named(projectId, dataPointID) }
  ofProject(projectId: number): SeriesInfo[] { return this.directory.ofProject(projectId) }

  closed(s: LiveSession, why: 'overflow' | 'login' | 'other'): void {
    this.sessions.delete(s)
    if (why === 'overflow') this.counters.closed_overflow++
    if (why === 'login') this.counters.closed_login++
  }

  /** A stored batch: per series, in order, to the sockets of its project. */
  private route(batch: readonly Observation[], project?: number): void {
    if (this.watchers.size === 0 || (project !== undefined && !this.watchers.has(project))) return
    const groups = new Map<number, LivePoint[]>()
    for (const o of batch) {
      const waiting = this.pending.get(o.series)
      if (waiting) { waiting.push({ time: o.time, value: o.value }); continue }
      const info = this.directory.get(o.series)
      if (info === null) continue
      let g = groups.get(o.series)
      if (!g) groups.set(o.series, g = [])
      g.push({ time: o.time, value: o.value })
    }
    for (const [series, points] of groups) {
      const info = this.directory.get(series)
      if (info) this.deliver(info, points)
      else this.lookUp(series, points)
    }
  }

  /** A series not known here (a datapoint created since its project was loaded): its points wait, in order, for the lookup. */
  private lookUp(series: number, points: LivePoint[]): void {
    this.pending.set(series, points)
    const settle = (info: SeriesInfo | null) => {
      const waiting = this.pending.get(series) ?? []
      this.pending.delete(series)
      if (info) this.deliver(info, waiting)
    }
    this.directory.lookup(series).then(settle, (err) => { settle(null); this.o.onError?.(err) })
  }

  private deliver(info: SeriesInfo, points: readonly LivePoint[]): void {
    const sessions = this.watchers.get(info.project_id)
    if (!sessions || points.length === 0) return
    let bytes: Buffer | undefined
    const frame = () => { this.counters.frames++; return (bytes ??= Buffer.from(observationsFrame(info.project_id, info.dataPointID, points))) }
    for (const s of sessions) s.offer(info, points, frame)
  }

  private routeAlerts(events: readonly AlertEvent[]): void {
    if (this.watchers.size === 0) return
    // In order: each event's alert is looked up (once) before the next event is routed.
    this.alertChain = this.alertChain.then(async () => {
      for (const e of events) {
        const a = await this.alertOf(e.alert_id)
        const info = a && this.directory.get(a.series)
        const sessions = a && this.watchers.get(a.project_id)
        if (!info || !sessions) continue
        let bytes: Buffer | undefined
        const frame = () => (bytes ??= Buffer.from(alertFrame(info.project_id, { ...e, dataPointID: info.dataPointID })))
        for (const s of sessions) s.offerAlert(info, frame)
      }
    }).catch((err) => this.o.onError?.(err))
  }

  private async alertOf(id: number): Promise<AlertInfo | null> {
    if (!this.alertInfo.has(id)) {
      const a = await this.catalog.alerts.find(id)
      if (this.alertInfo.size > 10_000) this.alertInfo.clear()
      this.alertInfo.set(id, a ? { project_id: a.project_id, series: a.datapoint } : null)
    }
    return this.alertInfo.get(id)!
  }

  /** Closes (4401) the sockets whose login ended: of one user, of every bearer token, or all. */
  private async checkLogins(p: ChangePayload): Promise<void> {
    const userId = typeof p.userId === 'number' ? p.userId : undefined
    for (const s of [...this.sessions]) {
      if (userId !== undefined && s.user.id !== userId) continue
      if (p.tokens === true && !('token' in s.login)) continue
      if (!(await this.loginValid(s)) && s.isOpen) s.end(LIVE_CLOSE.LOGIN_ENDED, 'the login ended: token revoked or expired, password changed or user deleted', 'login')
    }
  }

  private async loginValid(s: LiveSession): Promise<boolean> {
    if ('token' in s.login) return (await this.catalog.tokens.verify(s.login.token)) === s.user.id
    const u = await this.catalog.users.findWithHash(s.user.id)
    return u !== undefined && u.email === s.user.email && u.password_hash === s.login.passwordHash
  }

  private async tagsChanged(p: ChangePayload): Promise<void> {
    if (typeof p.datapoint === 'number') {
      const known = this.directory.get(p.datapoint)
      if (known === undefined || known === null) return // not of a watched project
      const info = await this.directory.reload(p.datapoint)
      for (const s of this.sessions) s.tagsChanged(p.datapoint, info)
      return
    }
    const projects = typeof p.project === 'number' ? [p.project] : this.directory.watchedProjects()
    for (const id of projects) {
      if (!this.directory.isLoaded(id)) continue
      const before = this.directory.ofProject(id)
      await this.directory.reloadProject(id)
      for (const old of before) {
        const now = this.directory.get(old.id) ?? null
        for (const s of this.sessions) s.tagsChanged(old.id, now)
      }
    }
  }

  /** Ends every socket (1001) and stops listening. */
  async close(): Promise<void> {
    for (const stop of this.stops) stop()
    for (const s of [...this.sessions]) s.end(LIVE_CLOSE.GOING_AWAY, 'the server stops')
    await this.o.feed.close()
  }
}
