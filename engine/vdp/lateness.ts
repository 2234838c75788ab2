// Late data of running virtual datapoints (issue 16): an input observation at or before the
// newest one its pin has seen (late, or a correction of a stored value) and at most the
// lateness horizon behind it schedules a replay from its time on, RECOMPUTE_DELAY_MS later on
// the clock, one per virtual datapoint for all late observations seen meanwhile. Older ones
// are left to the live pipeline alone (which drops what its windows no longer hold).
import type { Observable } from 'rxjs'
import type { VdpRecord } from '../../catalog/virtual-datapoints.ts'
import { MICROS_PER_MS, type Clock } from '../../core/clock/clock.ts'
import { tapValues } from '../stream/channel.ts'
import type { RangeReplayResult } from './range-replay.ts'
import type { Obs } from './types.ts'

/** Default lateness horizon (LINTEL_VDP_LATENESS): one hour. */
export const DEFAULT_LATENESS_US = 3600 * 1_000_000
/** Late observations seen within this time are recomputed together. */
export const RECOMPUTE_DELAY_MS = 200

export type RecomputeReport = (r: { id: number; from: number; result?: RangeReplayResult; err?: unknown }) => void

/**
 * The pins' inputs, telling `late(time)` about an observation at or before the newest its pin
 * has seen (a late one, or a correction) and at most `horizon` µs behind it. Observations of
 * one pin arrive in time order when nothing is late (the store-first feed replays in order).
 */
export function watchLateness(input: (key: string) => Observable<Obs>, horizon: number, late: (time: number) => void): (key: string) => Observable<Obs> {
  return (key) => {
    let newest = -Infinity
    return tapValues(input(key), (o) => {
      if (o.time > newest) newest = o.time
      else if (newest - o.time <= horizon) late(o.time)
    })
  }
}

/** Recomputes scheduled by late data: one pending per virtual datapoint, from its earliest late time. */
export class LateRecomputes {
  private readonly pending = new Map<number, { from: number }>()

  constructor (private readonly o: {
    clock: Clock
    /** Whether it still runs and no replay of it is under way (else the recompute is dropped). */
    due: (id: number) => boolean
    replay: (v: VdpRecord, from: number) => Promise<RangeReplayResult>
    log: { info(obj: object, msg: string): void; error(obj: object, msg: string): void }
    onRecompute?: RecomputeReport
  }) {}

  late(v: VdpRecord, time: number): void {
    const pending = this.pending.get(v.id)
    if (pending) { pending.from = Math.min(pending.from, time); return }
    const entry = { from: time }
    this.pending.set(v.id, entry)
    this.o.clock.after(() => {
      this.pending.delete(v.id)
      if (this.o.due(v.id)) this.recompute(v, entry.from)
    }, RECOMPUTE_DELAY_MS * MICROS_PER_MS)
  }

  private recompute(v: VdpRecord, from: number): void {
    const { log, onRecompute } = this.o
    this.o.replay(v, from).then(
      (result) => {
        log.info({ vdp: v.dataPointID, project_id: v.project_id, from, ...result }, 'late input: virtual datapoint recomputed')
        onRecompute?.({ id: v.id, from, result })
      },
      (err) => {
        log.error({ err, vdp: v.dataPointID, project_id: v.project_id }, 'late input: recompute failed')
        onRecompute?.({ id: v.id, from, err })
      },
    )
  }
}
