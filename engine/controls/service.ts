// The controls-app service (spec 2 "Controls app"; issue 31 items 1, 3 and 5): the platform's
// side of apps that run on the edge agent. It keeps each app's state in the catalog, deploys
// changes to the edge and takes the edge's reports:
//   create / setRun / remove   the API's requests, checked against the lifecycle table; each
//               change the edge must hear of raises the app's revision, is stored, and only then
//               sent (APPDEF on the project's CONTROLS topic, encoded outside the engine by
//               ingest/mqtt/controls-app-link.ts), so a deployment is never lost: it stays
//               pending (revision > confirmed_revision) until the edge confirms it
//   holidaysChanged            a new calendar re-deploys the project's deployed apps
//   onState    APPSTATE: the edge's state for a revision; only a report of the app's current
//              revision moves it (an older one is stale), and Deleted removes a deleting app
//   onLog      APPLOG: stored once per (app, seq); a conflict also shows in the app's status
//   onSync     APPSYNC after the edge (re)connects: an APPDEF for every app whose revision the
//              edge lacks, a delete for apps it holds that the project no longer has
//   resume     after the platform's restart: the pending deployments are sent again
//   expirePending  an app Starting or Stopping for longer than the deployment time-out (no
//              edge agent answered) goes to Failed with the reason in its status and log; the
//              deployment stays pending, so the agent's later answer moves the app as it
//              reports; an app Deleting that long is removed (the agent hears of it at APPSYNC)
// Only reports from the app's own project count (the broker admits them only from the
// project's designated edge accounts). Several API processes hear every report in scaled mode:
// every change is a compare-and-set on the revision and status read, and log entries are
// keyed by (app, seq), so each is recorded once.
import { randomUUID } from 'node:crypto'
import type { ControlsApp, ControlsAppChange, ControlsAppLogEntry, Desired } from '../../catalog/controls-apps.ts'
import type { ControlsAppsPort, ProjectsPort } from '../../catalog/port.ts'
import { MICROS_PER_MS, nowMs, systemClock, type Clock } from '../../core/clock/clock.ts'
import { ConflictError, NotFoundError } from '../../core/errors.ts'
import { APP_LIFECYCLE, CREATED, DELETING, EDGE_TRIGGER, FAILED, STARTING, STOPPING, unaffected } from './lifecycle.ts'

/** What the edge is told about one app (encoded as APPDEF by the caller). */
export interface AppDeployment {
  app_id: string
  revision: number
  desired: Desired
  algorithm: string
  variation?: string
  zone: string
  pins: Record<string, string>
  /** Left out of the delete of an app the platform does not know. */
  configuration?: Record<string, unknown>
  holidays?: unknown[]
}

/** Who sent a report: the project of the broker account, and its username. */
export interface EdgeSource { projectId: number; username: string }
export interface EdgeAppState { app_id: string; revision: number; state: keyof typeof EDGE_TRIGGER; reason?: string }
export interface EdgeAppLog { app_id: string; seq: number; time: string; kind: string; datapoint?: string; value?: number | null; priority?: number; message: string }

export interface ControlsServiceDeps {
  apps: ControlsAppsPort
  projects: Pick<ProjectsPort, 'settings'>
  /** Sends the deployment to the project's edge (APPDEF on its CONTROLS topic). */
  publish: (projectId: number, d: AppDeployment) => Promise<void>
  clock?: Clock
  log?: { warn(obj: object, msg: string): void }
  /** How long a start waits for the edge agent's answer before the app is Failed, ms (default 60 s). */
  deployTimeoutMs?: number
}

export const DEFAULT_DEPLOY_TIMEOUT_MS = 60_000

export interface NewApp {
  projectId: number; componentInProjectId: number; algorithm: string; variation: string; name: string; description: string
  configuration: Record<string, unknown>; pins: Record<string, string>; createdBy: string
}

export interface RunOutcome { affected: boolean; app: ControlsApp }

const text = (code: number) => APP_LIFECYCLE.text(code)
/** The states that wait for the edge agent's answer, bounded by the deployment time-out. */
const WAITING = new Set([STARTING, STOPPING, DELETING])

export class ControlsAppService {
  private readonly clock: Clock
  /** Per app, the tail of its serialized updates (one report or request at a time in this process). */
  private readonly chains = new Map<string, Promise<unknown>>()
  readonly counters = { deployed: 0, deploy_failed: 0, reports_ignored: 0, logs_stored: 0, deploy_timeouts: 0 }
  readonly deployTimeoutMs: number

  constructor (private readonly deps: ControlsServiceDeps) {
    this.clock = deps.clock ?? systemClock
    this.deployTimeoutMs = deps.deployTimeoutMs ?? DEFAULT_DEPLOY_TIMEOUT_MS
  }

  private entry(message: string, code: number | null, kind = 'status_change'): ControlsAppLogEntry {
    return { seq: null, time_us: nowMs(this.clock) * MICROS_PER_MS, kind, message, status_code: code, datapoint: null, value: null, priority: null }
  }

  async create(n: NewApp): Promise<ControlsApp> {
    const at = nowMs(this.clock)
    return this.deps.apps.create({
      id: randomUUID(), project_id: n.projectId, componentinproject_id: n.componentInProjectId, algorithm: n.algorithm, variation: n.variation,
      name: n.name, description: n.description, configuration: n.configuration, pins: n.pins, status_code: CREATED, desired: 'stop',
      revision: 1, created_by: n.createdBy, created_at: at,
    }, this.entry(`Created by ${n.createdBy}`, CREATED))
  }

  /** run=true starts, run=false stops; `affected` false when it already runs (or does not). 409 from the table otherwise. */
  setRun(id: string, run: boolean, by: string): Promise<RunOutcome> {
    return this.serial(id, async () => {
      const app = await this.current(id)
      if (unaffected(app.status_code, run)) return { affected: false, app }
      const to = APP_LIFECYCLE.next(app.status_code, run ? 'run' : 'stop', app.id)
      const moved = await this.change(app, { status_code: to, status_reason: '', desired: run ? 'run' : 'stop', revision: app.revision + 1, deployed: true },
        this.entry(`${run ? 'Run' : 'Stop'} requested by ${by}: ${text(to)} (revision ${app.revision + 1} sent to the edge agent)`, to))
      await this.deploy(moved)
      return { affected: true, app: moved }
    })
  }

  /** Deletes an app that is not running: at once if it never went to the edge, else once the edge confirms. */
  remove(id: string, by: string): Promise<ControlsApp> {
    return this.serial(id, async () => {
      const app = await this.current(id)
      APP_LIFECYCLE.next(app.status_code, 'delete', app.id)
      const moved = await this.change(app, { status_code: DELETING, desired: 'delete', revision: app.revision + (app.deployed ? 1 : 0) },
        this.entry(`Delete requested by ${by}`, DELETING))
      if (!app.deployed) await this.deps.apps.remove(app.id)
      else await this.deploy(moved)
      return moved
    })
  }

  /** A new holiday calendar: every deployed app of the project gets a new revision with it. */
  async holidaysChanged(projectId: number): Promise<number> {
    let n = 0
    for (const a of await this.deps.apps.listByProject(projectId)) {
      if (!a.deployed || a.desired === 'delete') continue
      await this.serial(a.id, async () => {
        const app = await this.deps.apps.find(a.id)
        if (!app || app.desired === 'delete') return
        const moved = await this.change(app, { revision: app.revision + 1 }, this.entry(`Holiday calendar changed: revision ${app.revision + 1} sent to the edge agent`, null, 'deployment'))
        await this.deploy(moved)
        n++
      })
    }
    return n
  }

  /** APPSTATE from an edge account of `src.projectId`. */
  onState(src: EdgeSource, s: EdgeAppState): Promise<void> {
    return this.serial(s.app_id, async () => {
      const app = await this.deps.apps.find(s.app_id)
      if (!app || app.project_id !== src.projectId) return this.ignored(src, `no controls app '${s.app_id}' in project ${src.projectId}`)
      if (s.revision !== app.revision) return this.ignored(src, `APPSTATE of app '${app.id}' for revision ${s.revision}, the current one is ${app.revision}`)
      const trigger = EDGE_TRIGGER[s.state]
      if (!APP_LIFECYCLE.allows(app.status_code, trigger)) return this.ignored(src, `APPSTATE ${s.state} of app '${app.id}' while ${text(app.status_code)}`)
      if (s.state === 'Deleted') {
        await this.deps.apps.remove(app.id)
        return
      }
      const to = APP_LIFECYCLE.next(app.status_code, trigger, app.id)
      const reason = s.reason ?? ''
      if (to === app.status_code && reason === app.status_reason && app.confirmed_revision === s.revision) return
      const entry = to !== app.status_code || reason !== app.status_reason
        ? this.entry(`${text(to)} on the edge agent (edge account ${src.username})${reason ? `: ${reason}` : ''}`, to)
        : undefined
      await this.deps.apps.update(app.id, app, { status_code: to, status_reason: reason, confirmed_revision: s.revision }, entry)
    })
  }

  /** APPLOG entries of one app, from an edge account of `src.projectId`; each (app, seq) is stored once. */
  onLog(src: EdgeSource, entries: readonly EdgeAppLog[]): Promise<void> {
    const id = entries[0]?.app_id
    if (id === undefined) return Promise.resolve()
    return this.serial(id, async () => {
      const app = await this.deps.apps.find(id)
      if (!app || app.project_id !== src.projectId) return this.ignored(src, `APPLOG for no controls app '${id}' in project ${src.projectId}`)
      const stored = await this.deps.apps.addLog(id, entries.map((e) => ({
        seq: e.seq, time_us: Date.parse(e.time) * MICROS_PER_MS, kind: e.kind, message: e.message, status_code: null,
        datapoint: e.datapoint ?? null, value: e.value ?? null, priority: e.priority ?? null,
      })))
      this.counters.logs_stored += stored
      // Item 4: a conflict is visible in the app's status until the edge reports a new state.
      const conflict = [...entries].reverse().find((e) => e.kind === 'conflict')
      if (stored > 0 && conflict && app.status_reason !== conflict.message) await this.deps.apps.update(id, app, { status_reason: conflict.message })
    })
  }

  /** APPSYNC: what the edge holds, by revision; answered with the deployments it lacks. */
  async onSync(src: EdgeSource, held: readonly { app_id: string; revision: number }[]): Promise<number> {
    const edge = new Map(held.map((a) => [a.app_id, a.revision]))
    let sent = 0
    for (const app of await this.deps.apps.listByProject(src.projectId)) {
      const has = edge.get(app.id)
      edge.delete(app.id)
      if (!app.deployed || has === app.revision) continue
      if (has === undefined && app.desired === 'delete') {
        await this.deps.apps.remove(app.id) // the edge has none left to delete
        continue
      }
      await this.deploy(app)
      sent++
    }
    // Apps the edge runs that the project no longer has (deleted while the edge was away).
    const zone = (await this.deps.projects.settings(src.projectId)).time_zone
    for (const [appId, revision] of edge) {
      await this.send(src.projectId, { app_id: appId, revision: revision + 1, desired: 'delete', algorithm: 'schedule', zone, pins: {} })
      sent++
    }
    return sent
  }

  /** After a restart: sends every deployment the edge has not confirmed yet. */
  async resume(): Promise<number> {
    const pending = await this.deps.apps.listPending()
    for (const app of pending) await this.deploy(app)
    return pending.length
  }

  /**
   * Apps waiting for the edge agent's answer (Starting, Stopping, Deleting) for longer than the
   * deployment time-out (counted from their last change, stored with the app, so a restart or
   * another process counts from the same instant). A start or a stop goes to Failed with the
   * reason; its deployment stays pending and the agent's later answer moves the app. A delete
   * is completed here: the app leaves the catalog, and the agent is told to delete it when it
   * next connects (APPSYNC answers a delete for every app the project no longer has).
   * Returns how many moved here.
   */
  async expirePending(): Promise<number> {
    let n = 0
    const due = (a: ControlsApp) => WAITING.has(a.status_code) && nowMs(this.clock) - a.updated_at >= this.deployTimeoutMs
    for (const a of (await this.deps.apps.listPending()).filter(due)) {
      await this.serial(a.id, async () => {
        const app = await this.deps.apps.find(a.id)
        if (!app || !due(app) || app.revision !== a.revision) return
        if (app.status_code === DELETING) {
          await this.deps.apps.remove(app.id)
          this.counters.deploy_timeouts++
          n++
          return
        }
        const what = app.status_code === STARTING ? 'answered the start' : 'confirmed the stop (the app may still run on site)'
        const reason = `no edge agent ${what} within ${this.deployTimeoutMs / 1000} s (revision ${app.revision} is still pending: ` +
          'it is sent again when the project\'s edge agent connects, and the app follows its answer)'
        const to = APP_LIFECYCLE.next(app.status_code, 'deploy_timeout', app.id)
        // Another process may have moved it meanwhile (compare-and-set): then it is not ours to fail.
        if (await this.deps.apps.update(app.id, app, { status_code: to, status_reason: reason }, this.entry(`${text(to)}: ${reason}`, to))) {
          this.counters.deploy_timeouts++
          n++
        }
      })
    }
    return n
  }

  /** A project being deleted: its edge is told to delete the apps (best effort; the catalog removes them). */
  async stopProject(projectId: number): Promise<void> {
    for (const app of await this.deps.apps.listByProject(projectId)) {
      if (app.deployed) await this.deploy({ ...app, desired: 'delete', revision: app.revision + 1 })
    }
  }

  /** Updates under way in this process (0: nothing left to do here). */
  get busy(): number {
    return this.chains.size
  }

  /** The APPDEF of an app as stored, with the project's zone and calendar; a failed send stays pending. */
  private async deploy(app: ControlsApp): Promise<void> {
    const [settings, calendar] = await Promise.all([this.deps.projects.settings(app.project_id), this.deps.apps.holidays(app.project_id)])
    const d: AppDeployment = {
      app_id: app.id, revision: app.revision, desired: app.desired, algorithm: app.algorithm, zone: settings.time_zone,
      pins: app.pins, configuration: app.configuration, holidays: calendar.rules,
    }
    if (app.variation !== '') d.variation = app.variation
    await this.send(app.project_id, d)
  }

  private async send(projectId: number, d: AppDeployment): Promise<void> {
    try {
      await this.deps.publish(projectId, d)
      this.counters.deployed++
    } catch (err) {
      // Pending in the catalog: sent again on the edge's next APPSYNC or the platform's restart.
      this.counters.deploy_failed++
      this.deps.log?.warn({ err, app: d.app_id, revision: d.revision }, 'controls apps: deployment not sent; it stays pending')
    }
  }

  private async current(id: string): Promise<ControlsApp> {
    const app = await this.deps.apps.find(id)
    if (!app) throw new NotFoundError(`Controls app '${id}' not found`)
    return app
  }

  /** The compare-and-set change; another process changed it meanwhile: 409 (the caller may retry). */
  private async change(app: ControlsApp, change: ControlsAppChange, entry: ControlsAppLogEntry): Promise<ControlsApp> {
    const moved = await this.deps.apps.update(app.id, app, change, entry)
    if (!moved) throw new ConflictError(`Controls app '${app.id}' changed meanwhile (another request or the edge agent): try again`)
    return moved
  }

  private serial<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.chains.get(id) ?? Promise.resolve()).then(fn, fn)
    const tail = run.catch(() => {})
    this.chains.set(id, tail)
    tail.then(() => { if (this.chains.get(id) === tail) this.chains.delete(id) })
    return run
  }

  private ignored(src: EdgeSource, why: string): void {
    this.counters.reports_ignored++
    this.deps.log?.warn({ projectId: src.projectId, username: src.username }, `controls apps: report ignored: ${why}`)
  }
}

