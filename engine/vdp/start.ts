// Starting one virtual datapoint: its pipeline (pipeline.ts) fed storage-first
// (engine/stream/replay.ts: windows rebuilt from the store, then live observations from the
// bus, which only carries durable ones), its outputs appended through the shared sink. Restart
// (issue 5): replayed outputs already stored are not computed again, a counter continues from
// its last stored total, and inputs stored after the last output are caught up (issue 16 item
// 8), one page at a time: the next page is read once the outputs of the previous one are written.
import type { SchedulerLike, Subscription } from 'rxjs'
import type { Catalog } from '../../catalog/index.ts'
import type { VdpRecord } from '../../catalog/virtual-datapoints.ts'
import type { ObservationBus } from '../observation-bus.ts'
import type { TimeseriesStore } from '../store/port.ts'
import { openReplay, type ReplayLimits } from '../stream/replay.ts'
import { parseVdpConfig } from './config.ts'
import { watchLateness } from './lateness.ts'
import type { OutputOwner, OutputSink } from './output-sink.ts'
import { buildPipeline, inputRange } from './pipeline.ts'
import type { VdpConfig } from './types.ts'

export interface RuntimeLog { info(obj: object, msg: string): void; warn?(obj: object, msg: string): void; error(obj: object, msg: string): void }

export interface StartDeps {
  catalog: Catalog
  store: TimeseriesStore
  bus: ObservationBus
  log: RuntimeLog
  sink: OutputSink
  scheduler: SchedulerLike
  catchUp?: ReplayLimits
  /** Lateness horizon in µs (0: late data is not watched). */
  latenessUs: number
}

export interface StartHooks {
  /** Whether the start is still wanted after the store was read (not stopped meanwhile). */
  wanted(): boolean
  /** The pipeline runs: called before the catch-up is fed, so a failure finds it registered. */
  running(sub: Subscription): void
  fail(err: unknown): void
  late(time: number): void
}

export async function startPipeline(d: StartDeps, v: VdpRecord, hooks: StartHooks): Promise<void> {
  const config = parseVdpConfig(v.type, { pins: v.pins, parameters: v.parameters })
  const { inputs, output } = await wiring(d.catalog, v, config)
  const log = d.log
  const onHorizon = (h: { lastOutput: number; catchUpAfter: number }) =>
    (log.warn ?? log.info).call(log, { vdp: v.dataPointID, project_id: v.project_id, ...h }, 'catch-up horizon reached: older inputs after the last output are not computed')
  const replay = await openReplay({ read: (s, q) => d.store.read(s, q), live: (s) => d.bus.series(s), onHorizon }, inputs, output, d.catchUp)
  if (!hooks.wanted()) { // stopped (e.g. its project deleted) while the store was read
    replay.close()
    return
  }
  const writes = outputsWritten(hooks.fail)
  const options = { scheduler: d.scheduler, initialCounter: replay.last?.value, alreadyStored: replay.alreadyStored }
  const { sink } = d
  const project = v.project_id
  const input = d.latenessUs > 0 ? watchLateness(replay.input, d.latenessUs, hooks.late) : replay.input
  const sub = buildPipeline(config, input, options).subscribe({
    next: (o) => {
      writes.emitted()
      sink.write(project, { series: output, time: o.time, value: o.value }, writes)
    },
    error: hooks.fail,
  })
  sub.add(() => { replay.close(); writes.release() })
  hooks.running(sub)
  replay.feed(writes.drained).catch(hooks.fail)
}

/** Series of the inputs and the output. */
export async function wiring(catalog: Catalog, v: VdpRecord, config: VdpConfig) {
  const ids = await catalog.datapoints.ensure(v.project_id, [v.dataPointID, ...config.pins.map((p) => p.dataPointID)])
  return { output: ids.get(v.dataPointID)!, inputs: config.pins.map((p) => ({ key: p.name, series: ids.get(p.dataPointID)!, range: inputRange(config, p) })) }
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
