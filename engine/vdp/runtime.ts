// Runs virtual datapoints: each running one is its pipeline started storage-first (start.ts),
// its outputs appended through `ingest` (embedded: the observed store, so they reach the bus
// and can feed other virtual datapoints; scaled: the log). Status changes go through the
// lifecycle (status.ts): a failing pipeline is "Health check failed", one that cannot start
// again after a restart is "Start failed" (resume.ts).
// Replay (issue 14 item 2, range-replay.ts): a running virtual datapoint is stopped for the
// replay of a range and started again after it, so it continues storage-first from the
// replayed outputs; then the ones fed by it are replayed too (cascade.ts). Late input data
// schedules such a replay on the clock (lateness.ts).
import type { Subscription } from 'rxjs'
import type { Catalog } from '../../catalog/index.ts'
import type { VdpRecord } from '../../catalog/virtual-datapoints.ts'
import { systemClock, type Clock } from '../../core/clock/clock.ts'
import type { Ingest } from '../ingest-port.ts'
import type { ObservationBus } from '../observation-bus.ts'
import type { ProjectRuntime } from '../project-runtimes.ts'
import type { TimeseriesStore } from '../store/port.ts'
import { schedulerOf } from '../stream/clock-scheduler.ts'
import type { ReplayLimits } from '../stream/replay.ts'
import { cascade, cascadeCandidates } from './cascade.ts'
import { parseVdpConfig } from './config.ts'
import { DEFAULT_LATENESS_US, LateRecomputes, type RecomputeReport } from './lateness.ts'
import { OutputSink } from './output-sink.ts'
import { type RangeReplayResult, replayRange, ReplayRefused, replayRefusal } from './range-replay.ts'
import { VdpResumer } from './resume.ts'
import type { VdpRunner } from './runner.ts'
import { startPipeline, wiring, type RuntimeLog, type StartDeps } from './start.ts'
import { moveVdp } from './status.ts'

export { DEFAULT_LATENESS_US, RECOMPUTE_DELAY_MS } from './lateness.ts'
export type { RuntimeLog } from './start.ts'

export class VdpRuntime extends VdpResumer implements VdpRunner, ProjectRuntime {
  protected readonly running = new Map<number, { sub: Subscription; projectId: number }>()
  /** Starts under way (they await the store): id → project. stop() removes the entry, and
   *  a start that finds its entry gone after an await gives up instead of running. */
  protected readonly starting = new Map<number, number>()
  /** Replays under way: id → whether to start it again afterwards (stop() clears that). */
  private readonly replaying = new Map<number, { restart: boolean }>()
  private readonly startDeps: StartDeps
  private readonly lateness: LateRecomputes

  constructor (private readonly deps: {
    catalog: Catalog
    /** Reads of the inputs' history and of the last output. */
    store: TimeseriesStore
    /** Where outputs go (embedded: the observed store, so they reach the bus; scaled: the log). */
    ingest: Ingest
    bus: ObservationBus
    log: RuntimeLog
    /** Time triggers, coalescing and late-data recomputes (default the system clock). */
    clock?: Clock
    /** Page size and horizon of the catch-up on start (tests lower them). */
    catchUp?: ReplayLimits
    /** Lateness horizon in µs (default DEFAULT_LATENESS_US; 0: late data is not recomputed). */
    latenessUs?: number
    /** Told when a recompute for late data finished or failed (tests, logs). */
    onRecompute?: RecomputeReport
    /** Whether this process runs the project (scaled mode: the worker owning the project's
     *  partition of the log; default: every project). Others are left to their owner. */
    owns?: (projectId: number) => boolean
  }) {
    super(deps.catalog, deps.log, (projectId) => deps.owns?.(projectId) ?? true)
    const clock = deps.clock ?? systemClock
    const { catalog, store, bus, log, catchUp } = deps
    this.startDeps = { catalog, store, bus, log, catchUp, sink: new OutputSink(deps.ingest), scheduler: schedulerOf(clock), latenessUs: deps.latenessUs ?? DEFAULT_LATENESS_US }
    this.lateness = new LateRecomputes({
      clock, log, onRecompute: deps.onRecompute,
      due: (id) => this.running.has(id) && !this.replaying.has(id),
      replay: (v, from) => this.replay(v, from, Number.MAX_SAFE_INTEGER),
    })
  }

  isRunning(id: number): boolean {
    return this.running.has(id) || this.replaying.get(id)?.restart === true
  }

  async start(v: VdpRecord): Promise<void> {
    if (this.running.has(v.id) || this.starting.has(v.id) || !this.owns(v.project_id)) return
    this.starting.set(v.id, v.project_id)
    try {
      await startPipeline(this.startDeps, v, {
        wanted: () => this.starting.has(v.id),
        running: (sub) => this.running.set(v.id, { sub, projectId: v.project_id }),
        late: (time) => this.lateness.late(v, time),
        fail: (err) => {
          this.deps.log.error({ err, vdp: v.dataPointID, project_id: v.project_id }, 'virtual datapoint failed')
          this.stop(v.id)
          moveVdp(this.deps.catalog, v.id, 'health_check_failed', `Health check failed: ${(err as Error).message}`).catch(() => { /* deleted or moved on */ })
        },
      })
    } finally {
      this.starting.delete(v.id)
    }
  }

  /**
   * Recomputes [start, end) from the store (range-replay.ts) and replaces the outputs there,
   * then cascades. Rejects with ReplayRefused for time triggers, and when a replay of it is
   * under way already.
   */
  async replay(v: VdpRecord, start: number, end: number, progress?: (inputs: number) => void): Promise<RangeReplayResult> {
    const result = await this.replayOne(v, start, end, progress)
    const candidates = cascadeCandidates(await this.deps.catalog.virtualDatapoints.listByProject(v.project_id))
    const d = { isRunning: (id: number) => this.isRunning(id), replayOne: (r: VdpRecord, s: number, e: number) => this.replayOne(r, s, e), log: this.deps.log }
    await cascade(d, v, start, candidates, new Set([v.id]))
    return result
  }

  /** A running one is stopped for the replay and started again afterwards. */
  private async replayOne(v: VdpRecord, start: number, end: number, progress?: (inputs: number) => void): Promise<RangeReplayResult> {
    const config = parseVdpConfig(v.type, { pins: v.pins, parameters: v.parameters })
    const refusal = replayRefusal(config)
    if (refusal) throw new ReplayRefused('trigger', refusal)
    if (this.replaying.has(v.id)) throw new ReplayRefused('busy', 'a replay of it is under way')
    const state = { restart: this.running.has(v.id) || this.starting.has(v.id) }
    this.stop(v.id)
    this.replaying.set(v.id, state)
    try {
      const { inputs, output } = await wiring(this.deps.catalog, v, config)
      return await replayRange(this.deps.store, config, inputs, output, start, end, { progress })
    } finally {
      this.replaying.delete(v.id)
      if (state.restart) {
        try { await this.start(v) } catch (err) { await this.startFailed(v, `Start failed after a replay: ${(err as Error).message}`) }
      }
    }
  }

  stop(id: number): void {
    const r = this.replaying.get(id)
    if (r) r.restart = false
    this.starting.delete(id)
    this.running.get(id)?.sub.unsubscribe()
    this.running.delete(id)
  }
}
