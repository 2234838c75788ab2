// Runs virtual datapoints on the embedded default: inputs come from the observation bus
// (observations already durable), outputs are appended to the store through the same bus,
// so virtual datapoints can feed each other.
//
// Storage-first restart (issue 5): on start, each pin's window is rebuilt from the store
// (count n: the last n; time d: the last d before the newest observation; cron: the open
// window; none: the last one) and replayed through the pipeline in event-time order across
// all pins, followed by live observations (buffered meanwhile, so none is missed). Outputs of
// the replay at or before the last stored output are already in the store and are dropped,
// so a restarted virtual datapoint continues where it stopped; a counter continues from its
// last stored total (accumulated here, after that filter, so replayed inputs never count twice).
import { concatMap, filter, map, Subject, type SchedulerLike, type Subscription } from 'rxjs'
import type { Catalog } from '../../catalog/index.ts'
import type { VdpRecord } from '../../catalog/virtual-datapoints.ts'
import type { ObservationBus } from '../observation-bus.ts'
import type { Ingest } from '../ingest.ts'
import type { Point, TimeseriesStore } from '../store/port.ts'
import { parseVdpConfig } from './config.ts'
import { CronRange } from './operators/cron-range.ts'
import { buildPipeline } from './pipeline.ts'
import type { ProjectRuntime } from '../project-runtimes.ts'
import type { VdpRunner } from './runner.ts'
import type { DataRange, Obs, VdpConfig } from './types.ts'

/** Most observations read back per pin when a window is rebuilt. */
const MAX_REPLAY = 100_000

export interface RuntimeLog { info(obj: object, msg: string): void; error(obj: object, msg: string): void }

export class VdpRuntime implements VdpRunner, ProjectRuntime {
  private readonly running = new Map<number, { sub: Subscription; projectId: number }>()
  /** Starts under way (they await the store): id → project. stop() removes the entry, and
   *  a start that finds its entry gone after an await gives up instead of running. */
  private readonly starting = new Map<number, number>()

  constructor (private readonly deps: {
    catalog: Catalog
    /** Reads of the inputs' history and of the last output. */
    store: TimeseriesStore
    /** Where outputs go (embedded: the observed store, so they reach the bus; scaled: the log). */
    ingest: Ingest
    bus: ObservationBus
    log: RuntimeLog
    scheduler?: SchedulerLike
  }) {}

  isRunning(id: number): boolean {
    return this.running.has(id)
  }

  async start(v: VdpRecord): Promise<void> {
    if (this.running.has(v.id) || this.starting.has(v.id)) return
    this.starting.set(v.id, v.project_id)
    try {
      await this.startNow(v)
    } finally {
      this.starting.delete(v.id)
    }
  }

  private async startNow(v: VdpRecord): Promise<void> {
    const { catalog, store, bus } = this.deps
    const cancelled = () => !this.starting.has(v.id)
    const config = parseVdpConfig(v.type, { pins: v.pins, parameters: v.parameters })
    const ids = catalog.datapoints.ensure(v.project_id, [v.dataPointID, ...config.pins.map((p) => p.dataPointID)])
    const output = ids.get(v.dataPointID)!
    const [last] = await store.read(output, { limit: 1, from: 'last' })
    if (cancelled()) return

    // Live observations are buffered from now on, so none falls between history and live.
    const subjects = new Map(config.pins.map((p) => [p.name, new Subject<Obs>()]))
    let buffer: { pin: string; obs: Obs }[] | undefined = []
    const live = config.pins.map((p) => bus.series(ids.get(p.dataPointID)!).subscribe((obs) => {
      if (buffer) buffer.push({ pin: p.name, obs })
      else subjects.get(p.name)!.next(obs)
    }))
    const history: { pin: string; obs: Obs }[] = []
    for (const p of config.pins) {
      const points = await this.history(ids.get(p.dataPointID)!, config.type === 'gradient' ? { kind: 'count', n: 2 } : p.range)
      for (const obs of points) history.push({ pin: p.name, obs })
    }
    if (cancelled()) {
      for (const l of live) l.unsubscribe()
      return
    }
    history.sort((a, b) => a.obs.time - b.obs.time)

    // A counter runs as its formula; the total is accumulated below, after the replay filter.
    const counter = config.type === 'counter'
    const pipelineConfig: VdpConfig = counter ? { type: 'formula', pins: config.pins, parameters: { formula: config.parameters.formula } } : config
    let total = counter ? (last?.value ?? config.parameters.default_init_value) : 0
    let replaying = true
    const lastStored = last?.time ?? -Infinity
    const sub = buildPipeline(pipelineConfig, (name) => subjects.get(name)!, { scheduler: this.deps.scheduler }).pipe(
      // Synchronous, at emission: replayed outputs that are already stored are dropped.
      filter((o) => !(replaying && o.time <= lastStored)),
      map((o) => (counter ? { time: o.time, value: total = total + o.value } : o)),
      concatMap((o) => this.deps.ingest(v.project_id, [{ series: output, time: o.time, value: o.value }])),
    ).subscribe({
      error: (err) => {
        this.deps.log.error({ err, vdp: v.dataPointID, project_id: v.project_id }, 'virtual datapoint failed')
        this.stop(v.id)
        try { catalog.virtualDatapoints.setStatus(v.id, 304, `Health check failed: ${(err as Error).message}`) } catch { /* deleted */ }
      },
    })
    for (const l of live) sub.add(l)
    this.running.set(v.id, { sub, projectId: v.project_id })

    for (const h of history) subjects.get(h.pin)!.next(h.obs)
    const pending = buffer
    buffer = undefined
    for (const b of pending) subjects.get(b.pin)!.next(b.obs)
    replaying = false
  }

  stop(id: number): void {
    this.starting.delete(id)
    this.running.get(id)?.sub.unsubscribe()
    this.running.delete(id)
  }

  stopAll(): void {
    for (const id of [...this.running.keys(), ...this.starting.keys()]) this.stop(id)
  }

  /** Stops every virtual datapoint of the project, starts under way included (project deletion). */
  stopProject(projectId: number): void {
    for (const [id, r] of this.running) if (r.projectId === projectId) this.stop(id)
    for (const [id, p] of this.starting) if (p === projectId) this.stop(id)
  }

  /** Ids of the virtual datapoints running now (for metrics and tests). */
  runningIds(): number[] {
    return [...this.running.keys()]
  }

  /** Starts every virtual datapoint whose status says it runs (after a process restart). */
  async resume(): Promise<void> {
    for (const v of this.deps.catalog.virtualDatapoints.listRunning()) {
      try {
        if (!this.deps.catalog.projects.vdpEnabled(v.project_id)) throw new Error('virtual datapoints are disabled for the project')
        await this.start(v)
        this.deps.log.info({ vdp: v.dataPointID, project_id: v.project_id }, 'virtual datapoint resumed')
      } catch (err) {
        this.deps.catalog.virtualDatapoints.setStatus(v.id, 201, `Start failed after restart: ${(err as Error).message}`)
      }
    }
  }

  /** Matches the running set to the catalog (scaled mode: the API runs in another process). */
  async reconcile(): Promise<void> {
    const wanted = new Map(this.deps.catalog.virtualDatapoints.listRunning().map((v) => [v.id, v]))
    for (const id of [...this.running.keys()]) if (!wanted.has(id)) this.stop(id)
    for (const v of wanted.values()) {
      if (this.running.has(v.id)) continue
      try {
        await this.start(v)
      } catch (err) {
        this.deps.catalog.virtualDatapoints.setStatus(v.id, 201, `Start failed: ${(err as Error).message}`)
      }
    }
  }

  /** What a pin's window held, read back from the store (ascending). */
  private async history(series: number, range: DataRange): Promise<Point[]> {
    const { store } = this.deps
    if (range.kind === 'count') return store.read(series, { limit: Math.min(range.n, MAX_REPLAY), from: 'last' })
    const [newest] = await store.read(series, { limit: 1, from: 'last' })
    if (!newest || range.kind === 'none') return newest ? [newest] : []
    let start: number
    if (range.kind === 'time') start = newest.time - range.us
    else {
      const w = new CronRange(range.start, range.end).windowOf(newest.time)
      if (!w) return []
      start = w.start
    }
    return store.read(series, { start, end: newest.time + 1, limit: MAX_REPLAY, from: 'last' })
  }
}
