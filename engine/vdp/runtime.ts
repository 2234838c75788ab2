// Runs virtual datapoints: each running one is its pipeline (pipeline.ts, the code the tests
// test) fed storage-first (engine/stream/replay.ts: windows rebuilt from the store, then live
// observations from the bus, which only carries durable ones), its outputs appended through
// `ingest` (embedded: the observed store, so they reach the bus and can feed other virtual
// datapoints; scaled: the log). Restart (issue 5): replayed outputs already stored are not
// computed again, a counter continues from its last stored total, and inputs stored after the
// last output are caught up (issue 16 item 8), one page at a time: the next page is read once
// the outputs of the previous one are written.
// Status changes go through the lifecycle (status.ts): a failing pipeline is "Health check
// failed", one that cannot start again after a restart is "Start failed".
// Replay (issue 14 item 2, range-replay.ts): a running virtual datapoint is stopped for the
// replay of a range and started again after it, so it continues storage-first from the
// replayed outputs (windows, a counter's total); then the running virtual datapoints fed by it
// are replayed from the same start on (cascade: replayed outputs do not go over the bus). Late data: an input observation at or before
// the newest one its pin has seen (late, or a correction of a stored value) and at most
// `latenessUs` behind it schedules such a replay from its time on, RECOMPUTE_DELAY_MS later,
// one per virtual datapoint for all late observations seen meanwhile. Older ones are left to
// the live pipeline alone (which drops what its windows no longer hold).
import type { Observable, SchedulerLike, Subscription } from 'rxjs'
import type { Catalog } from '../../catalog/index.ts'
import type { VdpRecord } from '../../catalog/virtual-datapoints.ts'
import type { Ingest } from '../ingest-port.ts'
import type { ObservationBus } from '../observation-bus.ts'
import type { TimeseriesStore } from '../store/port.ts'
import { openReplay, type ReplayLimits } from '../stream/replay.ts'
import { tapValues } from '../stream/channel.ts'
import { parseVdpConfig } from './config.ts'
import { VDP_LIFECYCLE } from './lifecycle.ts'
import { buildPipeline, inputRange } from './pipeline.ts'
import type { ProjectRuntime } from '../project-runtimes.ts'
import type { VdpRunner } from './runner.ts'
import { moveVdp } from './status.ts'
import { type OutputOwner, OutputSink } from './output-sink.ts'
import { type RangeReplayResult, replayRange, ReplayRefused, replayRefusal } from './range-replay.ts'
import type { Obs, VdpConfig } from './types.ts'

/** Default lateness horizon (LINTEL_VDP_LATENESS): one hour. */
export const DEFAULT_LATENESS_US = 3600 * 1_000_000
/** Late observations seen within this time are recomputed together. */
export const RECOMPUTE_DELAY_MS = 200

export interface RuntimeLog { info(obj: object, msg: string): void; warn?(obj: object, msg: string): void; error(obj: object, msg: string): void }

export class VdpRuntime implements VdpRunner, ProjectRuntime {
  private readonly running = new Map<number, { sub: Subscription; projectId: number }>()
  /** Starts under way (they await the store): id → project. stop() removes the entry, and
   *  a start that finds its entry gone after an await gives up instead of running. */
  private readonly starting = new Map<number, number>()
  /** Outputs of all of them, written in batches (output-sink.ts). */
  private readonly sink: OutputSink
  /** Replays under way: id → whether to start it again afterwards (stop() clears that). */
  private readonly replaying = new Map<number, { restart: boolean }>()
  /** Recomputes scheduled by late data: id → earliest late time. */
  private readonly recomputes = new Map<number, { from: number }>()

  constructor (private readonly deps: {
    catalog: Catalog
    /** Reads of the inputs' history and of the last output. */
    store: TimeseriesStore
    /** Where outputs go (embedded: the observed store, so they reach the bus; scaled: the log). */
    ingest: Ingest
    bus: ObservationBus
    log: RuntimeLog
    scheduler?: SchedulerLike
    /** Page size and horizon of the catch-up on start (tests lower them). */
    catchUp?: ReplayLimits
    /** Lateness horizon in µs (default DEFAULT_LATENESS_US; 0: late data is not recomputed). */
    latenessUs?: number
    /** Told when a recompute for late data finished or failed (tests, logs). */
    onRecompute?: (r: { id: number; from: number; result?: RangeReplayResult; err?: unknown }) => void
    /**
     * Whether this process runs the project (scaled mode: the worker owning the project's
     * partition of the log; default: every project). Others are left to their owner.
     */
    owns?: (projectId: number) => boolean
  }) {
    this.sink = new OutputSink(deps.ingest)
  }

  private owns(projectId: number): boolean {
    return this.deps.owns?.(projectId) ?? true
  }

  isRunning(id: number): boolean {
    return this.running.has(id) || this.replaying.get(id)?.restart === true
  }

  async start(v: VdpRecord): Promise<void> {
    if (this.running.has(v.id) || this.starting.has(v.id) || !this.owns(v.project_id)) return
    this.starting.set(v.id, v.project_id)
    try {
      await this.startNow(v)
    } finally {
      this.starting.delete(v.id)
    }
  }

  private async startNow(v: VdpRecord): Promise<void> {
    const { catalog, store, bus } = this.deps
    const config = parseVdpConfig(v.type, { pins: v.pins, parameters: v.parameters })
    const { inputs, output } = await this.wiring(v, config)
    const log = this.deps.log
    const onHorizon = (h: { lastOutput: number; catchUpAfter: number }) =>
      (log.warn ?? log.info).call(log, { vdp: v.dataPointID, project_id: v.project_id, ...h }, 'catch-up horizon reached: older inputs after the last output are not computed')
    const replay = await openReplay({ read: (s, q) => store.read(s, q), live: (s) => bus.series(s), onHorizon }, inputs, output, this.deps.catchUp)
    if (!this.starting.has(v.id)) { // stopped (e.g. its project deleted) while the store was read
      replay.close()
      return
    }
    const fail = (err: unknown) => {
      log.error({ err, vdp: v.dataPointID, project_id: v.project_id }, 'virtual datapoint failed')
      this.stop(v.id)
      moveVdp(catalog, v.id, 'health_check_failed', `Health check failed: ${(err as Error).message}`).catch(() => { /* deleted or moved on */ })
    }
    const writes = outputsWritten(fail)
    const options = { scheduler: this.deps.scheduler, initialCounter: replay.last?.value, alreadyStored: replay.alreadyStored }
    const sink = this.sink
    const project = v.project_id
    const horizon = this.deps.latenessUs ?? DEFAULT_LATENESS_US
    const input = horizon > 0 ? watchLateness(replay.input, horizon, (time) => this.late(v, time)) : replay.input
    const sub = buildPipeline(config, input, options).subscribe({
      next: (o) => {
        writes.emitted()
        sink.write(project, { series: output, time: o.time, value: o.value }, writes)
      },
      error: fail,
    })
    sub.add(() => { replay.close(); writes.release() })
    this.running.set(v.id, { sub, projectId: v.project_id })
    replay.feed(writes.drained).catch(fail)
  }

  /**
   * Recomputes [start, end) from the store (range-replay.ts) and replaces the outputs there.
   * A running one is stopped meanwhile and started again afterwards. Rejects with
   * ReplayRefused for time triggers, and when a replay of it is under way already.
   */
  async replay(v: VdpRecord, start: number, end: number, progress?: (inputs: number) => void): Promise<RangeReplayResult> {
    const result = await this.replayOne(v, start, end, progress)
    // The project's virtual datapoints with the datapoints they read, listed once per replay.
    const candidates = (await this.deps.catalog.virtualDatapoints.listByProject(v.project_id)).map((d) => ({ record: d, reads: pinInputs(d) }))
    await this.cascade(v, start, candidates, new Set([v.id]))
    return result
  }

  /**
   * Replayed outputs are written to the store only, not published on the bus, so the running
   * virtual datapoints fed by `v` never see them live: each of those is replayed in turn, from
   * `start` on to the newest output (a changed input value can change every later output, as
   * for late data), and then the ones fed by it. `seen` ends cycles. One that cannot be
   * replayed (a time trigger, a replay under way) is left as it is and logged.
   */
  private async cascade(v: VdpRecord, start: number, candidates: readonly CascadeCandidate[], seen: Set<number>): Promise<void> {
    for (const { record: dep, reads } of candidates) {
      if (seen.has(dep.id) || !reads.has(v.dataPointID) || !this.isRunning(dep.id)) continue
      seen.add(dep.id)
      try {
        await this.replayOne(dep, start, Number.MAX_SAFE_INTEGER)
      } catch (err) {
        (this.deps.log.warn ?? this.deps.log.info).call(this.deps.log, { err, vdp: dep.dataPointID, project_id: dep.project_id, fed_by: v.dataPointID }, 'replay not cascaded into a virtual datapoint fed by a replayed one')
        continue
      }
      await this.cascade(dep, start, candidates, seen)
    }
  }

  private async replayOne(v: VdpRecord, start: number, end: number, progress?: (inputs: number) => void): Promise<RangeReplayResult> {
    const config = parseVdpConfig(v.type, { pins: v.pins, parameters: v.parameters })
    const refusal = replayRefusal(config)
    if (refusal) throw new ReplayRefused('trigger', refusal)
    if (this.replaying.has(v.id)) throw new ReplayRefused('busy', 'a replay of it is under way')
    const restart = this.running.has(v.id) || this.starting.has(v.id)
    this.stop(v.id)
    const state = { restart }
    this.replaying.set(v.id, state)
    try {
      const { inputs, output } = await this.wiring(v, config)
      return await replayRange(this.deps.store, config, inputs, output, start, end, { progress })
    } finally {
      this.replaying.delete(v.id)
      if (state.restart) {
        try { await this.start(v) } catch (err) { await this.startFailed(v, `Start failed after a replay: ${(err as Error).message}`) }
      }
    }
  }

  /** A late input observation of a running virtual datapoint: recompute from `time` soon. */
  private late(v: VdpRecord, time: number): void {
    const pending = this.recomputes.get(v.id)
    if (pending) { pending.from = Math.min(pending.from, time); return }
    const entry = { from: time }
    this.recomputes.set(v.id, entry)
    setTimeout(() => {
      this.recomputes.delete(v.id)
      if (!this.running.has(v.id) || this.replaying.has(v.id)) return
      this.replay(v, entry.from, Number.MAX_SAFE_INTEGER).then(
        (result) => {
          this.deps.log.info({ vdp: v.dataPointID, project_id: v.project_id, from: entry.from, ...result }, 'late input: virtual datapoint recomputed')
          this.deps.onRecompute?.({ id: v.id, from: entry.from, result })
        },
        (err) => {
          this.deps.log.error({ err, vdp: v.dataPointID, project_id: v.project_id }, 'late input: recompute failed')
          this.deps.onRecompute?.({ id: v.id, from: entry.from, err })
        },
      )
    }, RECOMPUTE_DELAY_MS).unref()
  }

  /** Series of the inputs and the output. */
  private async wiring(v: VdpRecord, config: VdpConfig) {
    const ids = await this.deps.catalog.datapoints.ensure(v.project_id, [v.dataPointID, ...config.pins.map((p) => p.dataPointID)])
    return { output: ids.get(v.dataPointID)!, inputs: config.pins.map((p) => ({ key: p.name, series: ids.get(p.dataPointID)!, range: inputRange(config, p) })) }
  }

  stop(id: number): void {
    const r = this.replaying.get(id)
    if (r) r.restart = false
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

  /** Stops the virtual datapoints of projects this process no longer owns (a partition moved). */
  stopUnowned(): void {
    for (const [id, r] of this.running) if (!this.owns(r.projectId)) this.stop(id)
    for (const [id, p] of this.starting) if (!this.owns(p)) this.stop(id)
  }

  /** Ids of the virtual datapoints running now (for metrics and tests). */
  runningIds(): number[] {
    return [...this.running.keys()]
  }

  /** Starts every virtual datapoint whose status says it runs (after a process restart). */
  async resume(): Promise<void> {
    for (const v of await this.deps.catalog.virtualDatapoints.listByStatus(VDP_LIFECYCLE.running)) {
      if (!this.owns(v.project_id)) continue
      try {
        if (!await this.deps.catalog.projects.vdpEnabled(v.project_id)) throw new Error('virtual datapoints are disabled for the project')
        await this.start(v)
        this.deps.log.info({ vdp: v.dataPointID, project_id: v.project_id }, 'virtual datapoint resumed')
      } catch (err) {
        await this.startFailed(v, `Start failed after restart: ${(err as Error).message}`)
      }
    }
  }

  /**
   * Matches the running set to the catalog and to the projects this process owns (scaled
   * mode: run/stop comes from an API in another process; partitions move between workers).
   */
  async reconcile(): Promise<void> {
    const all = await this.deps.catalog.virtualDatapoints.listByStatus(VDP_LIFECYCLE.running)
    const wanted = new Map(all.filter((v) => this.owns(v.project_id)).map((v) => [v.id, v]))
    for (const id of [...this.running.keys()]) if (!wanted.has(id)) this.stop(id)
    for (const v of wanted.values()) {
      if (this.running.has(v.id)) continue
      try {
        await this.start(v)
      } catch (err) {
        await this.startFailed(v, `Start failed: ${(err as Error).message}`)
      }
    }
  }

  private async startFailed(v: VdpRecord, message: string): Promise<void> {
    try { await moveVdp(this.deps.catalog, v.id, 'start_failed', message) } catch { /* deleted or moved on meanwhile */ }
  }
}

interface CascadeCandidate { record: VdpRecord; reads: ReadonlySet<string> }

/** The datapoints the virtual datapoint's pins read. */
function pinInputs(v: VdpRecord): ReadonlySet<string> {
  try {
    return new Set(parseVdpConfig(v.type, { pins: v.pins, parameters: v.parameters }).pins.map((p) => p.dataPointID))
  } catch {
    return new Set() // a configuration that does not parse does not run either
  }
}

/**
 * The pins' inputs, telling `late(time)` about an observation at or before the newest its pin
 * has seen (a late one, or a correction) and at most `horizon` µs behind it. Observations of
 * one pin arrive in time order when nothing is late (the store-first feed replays in order).
 */
function watchLateness(input: (key: string) => Observable<Obs>, horizon: number, late: (time: number) => void): (key: string) => Observable<Obs> {
  return (key) => {
    let newest = -Infinity
    return tapValues(input(key), (o) => {
      if (o.time > newest) newest = o.time
      else if (newest - o.time <= horizon) late(o.time)
    })
  }
}

/**
 * Counts the outputs under way (emitted, not yet written) so the catch-up reads its next page
 * only once the outputs of the previous one are written: what waits in the sink stays
 * bounded by a page. `drained` resolves when nothing is pending, or the pipeline ended. A
 * failed write fails the virtual datapoint (once; not after it was stopped).
 */
function outputsWritten(fail: (err: Error) => void): OutputOwner & { emitted(): void; drained(): Promise<void>; release(): void } {
  let pending = 0
  let released = false
  let waiters: (() => void)[] = []
  const wake = () => { const w = waiters; waiters = []; for (const f of w) f() }
  return {
    emitted: () => { pending++ },
    written: (err) => {
      if (err && !released) fail(err)
      if (--pending === 0) wake()
    },
    drained: () => (pending === 0 || released ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
    release: () => { released = true; wake() },
  }
}
