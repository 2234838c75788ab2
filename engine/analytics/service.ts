// Runs analysis instances (spec 3 "Analysis"; issue 12 item 4): manual runs on a range, and
// the weekly schedule of enabled instances, Monday 00:00 to Monday 00:00. Persistent: which
// weeks ran is the catalog's ledger, so a week missed while the platform was down runs at the
// next tick after start, and a week is claimed in a transaction before it runs, so two worker
// processes never both run it (catalog/analytics.ts). The clock is injected (tests simulate it).
import type { CatalogPort } from '../../catalog/port.ts'
import type { AnalysisInstance, AnalysisResult, NewResult } from '../../catalog/analytics.ts'
import type { TimeseriesStore } from '../store/port.ts'
import { FUNCTIONS } from './functions/index.ts'
import type { ComponentLibrary } from './library.ts'
import { WEEK_RUN } from './lifecycle.ts'
import { runAnalysis } from './run.ts'
import type { AnalysisFunction } from './types.ts'
import { firstWholeWeek, nextWeek } from './weeks.ts'
import { every, MICROS_PER_MS, nowMs, systemClock, type Cancel, type Clock } from '../../core/clock/clock.ts'
import type { Running } from '../running.ts'

export interface AnalyticsOptions {
  catalog: CatalogPort
  store: TimeseriesStore
  library: ComponentLibrary
  functions?: readonly AnalysisFunction[]
  /** Business time (the weeks that are due) and the ticks (core/clock); default the system clock. */
  clock?: Clock
  /** This worker's name in the ledger. */
  worker?: string
  /** A claim older than this (wall time, ms) is taken over: its worker died. Default 15 min. */
  leaseMs?: number
  /** Results kept per instance, oldest dropped first (LINTEL_ANALYSIS_MAX_RESULTS; default the catalog's DEFAULT_RESULTS_PER_INSTANCE). */
  maxResults?: number
  /** Project time zone (IANA); default the project's `time_zone` in the catalog. */
  timeZoneOf?: (projectId: number) => string
  log?: { info: (o: object, m: string) => void; error: (o: object, m: string) => void }
}

export class AnalyticsService {
  readonly functions: readonly AnalysisFunction[]
  private readonly clock: Clock
  private readonly worker: string
  private cancelTicks: Cancel | undefined
  private ticking: Promise<number> | undefined
  /** Projects being deleted: their weeks are not run any more (ids are never reused). */
  private readonly stopped = new Set<number>()
  /** The weekly run under way, so stopProject() can wait for it. */
  private current: { projectId: number; done: Promise<number> } | undefined

  constructor (private readonly o: AnalyticsOptions) {
    this.functions = o.functions ?? FUNCTIONS
    this.clock = o.clock ?? systemClock
    this.worker = o.worker ?? `worker-${process.pid}`
  }

  fn(id: number): AnalysisFunction | undefined {
    return this.functions.find((f) => f.id === id)
  }

  /** Weeks run Monday 00:00 to Monday 00:00 in the project's time zone. */
  async zone(projectId: number): Promise<string> {
    return this.o.timeZoneOf?.(projectId) ?? (await this.o.catalog.projects.settings(projectId)).time_zone
  }

  /** The first whole week an instance enabled now covers. */
  async weeksFrom(projectId: number): Promise<number> {
    return firstWholeWeek(this.clock.now(), await this.zone(projectId))
  }

  /** Computes the instance's result on [start, end) in both languages (not stored). */
  async compute(instance: AnalysisInstance, start: number, end: number, trigger: NewResult['trigger']): Promise<NewResult> {
    const { catalog, library, store } = this.o
    const fn = this.fn(instance.analysisfunction_id)
    const cip = await catalog.componentsInProject.get(instance.componentinproject_id)
    const component = library.get(cip.component_id)
    if (!fn || !component) throw new Error(`analysis instance ${instance.id}: unknown function ${instance.analysisfunction_id} or component ${cip.component_id}`)
    const seriesOfPin = new Map<string, number>()
    for (const m of cip.pins) {
      const pin = component.pins.find((p) => p.id === m.pin_id)
      if (pin) seriesOfPin.set(pin.alphanumeric_id, m.datapoint)
    }
    const attributes: Record<string, string> = {}
    for (const a of cip.attributes) {
      const def = component.attributeDefinitions.find((d) => d.id === a.attribute_id)
      if (def) attributes[def.key] = a.value
    }
    const r = await runAnalysis({ fn, store, component: component.alphanumeric_id, seriesOfPin, attributes, start, end, timeZone: await this.zone(instance.project_id) })
    const texts = (lang: 'en' | 'de') => ({
      function_name: lang === 'en' ? fn.nameEN : fn.nameDE, interpretation: r[lang].interpretation,
      kpi: r[lang].kpi, recommendation: r[lang].recommendation, info: r[lang].info,
    })
    return { start, end, status: r.status, trigger, signal_color: r.signal_color, texts: { en: texts('en'), de: texts('de') } }
  }

  /** A manual run: one new result with a unique result_id. */
  async runNow(instance: AnalysisInstance, start: number, end: number): Promise<AnalysisResult> {
    return this.o.catalog.analytics.addResult(instance.id, await this.compute(instance, start, end, 'manual'), this.o.maxResults)
  }

  /**
   * Runs every due week of every enabled instance (weeks missed while down included, oldest
   * first), and takes over weeks whose worker died. Returns the number of weeks this worker ran.
   */
  tick(): Promise<number> {
    // One tick at a time in this process; other processes are kept off by the ledger.
    this.ticking ??= this.runDue().finally(() => { this.ticking = undefined })
    return this.ticking
  }

  private async runDue(): Promise<number> {
    const { catalog } = this.o
    const now = this.clock.now()
    let ran = 0
    // Wall time, not business time: the catalog stamps claims with its own wall clock.
    const stale = nowMs(systemClock) - (this.o.leaseMs ?? 15 * 60_000)
    for (const s of await catalog.analytics.staleWeeks(WEEK_RUN.initial, stale)) {
      const instance = await catalog.analytics.findInstance(s.instance_id)
      if (instance && !this.stopped.has(instance.project_id) && WEEK_RUN.allows(WEEK_RUN.initial, 'takeover') && await catalog.analytics.claimWeek(s.instance_id, s.week_start, this.worker, WEEK_RUN.initial, stale)) {
        ran += await this.runWeek(instance, s.week_start)
      }
    }
    for (const due of await catalog.analytics.scheduled()) {
      const zone = await this.zone(due.project_id)
      let week = due.last_week === null ? due.weeks_from : Math.max(nextWeek(due.last_week, zone), due.weeks_from)
      let instance: AnalysisInstance | undefined
      while (nextWeek(week, zone) <= now && !this.stopped.has(due.project_id)) {
        instance ??= await catalog.analytics.findInstance(due.id)
        if (!instance) break
        if (await catalog.analytics.claimWeek(due.id, week, this.worker, WEEK_RUN.initial, stale)) ran += await this.runWeek(instance, week)
        week = nextWeek(week, zone)
      }
    }
    return ran
  }

  /**
   * A project is being deleted (engine/project-runtimes.ts, issue 9 item 7): no week of it
   * starts from now on, and a run of it under way is awaited, so none writes a result after
   * the catalog has forgotten the project.
   */
  async stopProject(projectId: number): Promise<void> {
    this.stopped.add(projectId)
    if (this.current?.projectId === projectId) await this.current.done.catch(() => 0)
  }

  private runWeek(instance: AnalysisInstance, week: number): Promise<number> {
    if (this.stopped.has(instance.project_id)) return Promise.resolve(0)
    const done = this.computeWeek(instance, week).finally(() => { if (this.current?.done === done) this.current = undefined })
    this.current = { projectId: instance.project_id, done }
    return done
  }

  private async computeWeek(instance: AnalysisInstance, week: number): Promise<number> {
    const end = nextWeek(week, await this.zone(instance.project_id))
    let result: NewResult
    try {
      result = await this.compute(instance, week, end, 'weekly')
    } catch (err) {
      // The instance or its component went away meanwhile: the claim stays until its lease
      // ends, and the cascade removes it with the instance.
      this.o.log?.error({ err, instance: instance.id, week }, 'analytics: weekly run failed')
      return 0
    }
    const done = WEEK_RUN.next(WEEK_RUN.initial, 'finish', instance.name)
    const stored = await this.o.catalog.analytics.completeWeek(instance.id, week, this.worker, WEEK_RUN.initial, done, result, this.o.maxResults)
    return stored ? 1 : 0
  }

  /** Ticks now and then every `intervalMs` (default a minute) until stop(). */
  start(intervalMs = 60_000): void {
    const run = () => { this.tick().catch((err) => this.o.log?.error({ err }, 'analytics: tick failed')) }
    run()
    this.cancelTicks = every(this.clock, run, intervalMs * MICROS_PER_MS)
  }

  async stop(): Promise<void> {
    this.cancelTicks?.()
    this.cancelTicks = undefined
    await this.ticking
  }
}

/** The weekly schedule in the one module shape (engine/running.ts): ticks until stopped. */
export async function startAnalyticsSchedule(service: AnalyticsService, intervalMs?: number): Promise<Running> {
  service.start(intervalMs)
  return { stop: () => service.stop() }
}
