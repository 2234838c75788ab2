// Replay of a virtual datapoint over a historical range [start, end) (issue 14 item 2): the
// pipeline that runs live (pipeline.ts buildPipeline), fed from the store instead of the bus,
// and its outputs in the range replaced by what it computes. One code path: only the source
// of the observations differs.
//
//   1. The windows as of `start` (engine/stream/rebuild.ts windowHistory: what each pin's
//      window held at its newest observation before start) are fed first; the vectors they
//      make have times before `start` and are dropped before the calculation
//      (`alreadyStored`), as a restart does, so they only set the windows and the pins' values.
//   2. A counter starts from the last stored output before `start` (default_init_value if none).
//   3. Every input observation in [start, end), merged in event-time order across the pins
//      (engine/stream/catch-up.ts catchUpPages), in pages.
// After each page the outputs before the page's last time are final (a later observation of
// another pin may still come at that same time), and the store's range up to there is replaced
// in one step (TimeseriesStore.replaceRange), so memory stays bounded by a few pages and a
// reader never sees a gap. Up to WRITES_IN_FLIGHT replacements are under way while the next
// pages are computed (the store keeps their order): waiting for each commit left the replay
// idle a third of its time. The last step replaces up to `end`: outputs the replay no longer produces
// (a removed input, a formula now null) are gone.
//
// Equal to the live outputs when live saw the inputs in event-time order (tested by
// test/engine/vdp/range-replay.test.ts). Time triggers (every_minute, every_hour) stamp
// outputs with wall-clock boundaries, which stored data cannot reproduce: such a virtual
// datapoint cannot be replayed (ReplayRefused). Replayed outputs are written to the store
// only, not published on the bus: the runtime replays the running virtual datapoints fed by
// this one after it (runtime.ts, cascade).
import { LintelError } from '../../core/errors.ts'
import type { Point, TimeseriesStore } from '../store/port.ts'
import { catchUpPages } from '../stream/catch-up.ts'
import { windowHistory } from '../stream/rebuild.ts'
import { Fanout } from '../stream/channel.ts'
import type { ReplayInput } from '../stream/replay.ts'
import { buildPipeline } from './pipeline.ts'
import type { Obs, VdpConfig } from './types.ts'

/** A replay that cannot run: `trigger` (a time trigger), `busy` (a replay of it is under way). */
/** Input observations per page of a replay (larger than a restart's catch-up: nothing else waits on it). */
export const REPLAY_CHUNK = 20_000
const WRITES_IN_FLIGHT = 4

/** 400 REPLAY_REFUSED for a time trigger, 409 REPLAY_BUSY while a replay of it runs (core/errors.ts). */
export class ReplayRefused extends LintelError {
  constructor (readonly kind: 'trigger' | 'busy', message: string) { super(message, kind === 'busy' ? 'REPLAY_BUSY' : 'REPLAY_REFUSED') }

  /** The refusal as a request about the virtual datapoint `dataPointID` is answered. */
  about(dataPointID: string): ReplayRefused {
    return new ReplayRefused(this.kind, this.kind === 'busy' ? `A replay of '${dataPointID}' is under way` : `Virtual datapoint '${dataPointID}' cannot be replayed: ${this.message}`)
  }
}

export interface RangeReplayResult {
  /** Input observations fed from the range (the windows' history not counted). */
  inputs: number
  /** Outputs written in the range. */
  outputs: number
}

export interface RangeReplayOptions {
  /** Input observations per page (default REPLAY_CHUNK). */
  chunk?: number
  /** Told after each page with the inputs fed so far. */
  progress?: (inputs: number) => void
}

/** Whether the configuration can be replayed (no time trigger); the reason when not. */
export function replayRefusal(config: VdpConfig): string | undefined {
  const timed = config.pins.find((p) => p.trigger !== 'every_value')
  return timed && `its pin '${timed.name}' has the time trigger '${timed.trigger}', whose outputs depend on the wall clock, not on stored data`
}

export async function replayRange(
  store: Pick<TimeseriesStore, 'read' | 'replaceRange' | 'count'>, config: VdpConfig, inputs: readonly ReplayInput[], output: number,
  start: number, end: number, opts: RangeReplayOptions = {},
): Promise<RangeReplayResult> {
  const refusal = replayRefusal(config)
  if (refusal) throw new ReplayRefused('trigger', refusal)
  const read = (s: number, q: Parameters<TimeseriesStore['read']>[1]) => store.read(s, q)
  const chunk = opts.chunk ?? REPLAY_CHUNK
  const [before] = await read(output, { end: start, limit: 1, from: 'last' })
  const subjects = new Map(inputs.map((i) => [i.key, new Fanout<Obs>()]))
  let pending: Point[] = []
  let failure: unknown
  const sub = buildPipeline(config, (key) => subjects.get(key)!.observable, {
    initialCounter: before?.value,
    alreadyStored: (time) => time < start,
  }).subscribe({ next: (o) => { if (o.time >= start && o.time < end) pending.push(o) }, error: (err) => { failure = err } })
  const check = () => { if (failure) throw failure }
  const writes: Promise<void>[] = []
  const replace = async (from: number, to: number, points: Point[]) => {
    const w = store.replaceRange(output, from, to, points)
    w.catch(() => { /* awaited below */ })
    writes.push(w)
    if (writes.length >= WRITES_IN_FLIGHT) await writes.shift()
  }
  try {
    // 1. The windows as of start, in event-time order across pins (stable: equal times keep pin order).
    const history: { key: string; obs: Point }[] = []
    for (const i of inputs) for (const obs of await windowHistory(read, i.series, i.range, start)) history.push({ key: i.key, obs })
    history.sort((a, b) => a.obs.time - b.obs.time)
    for (const h of history) subjects.get(h.key)!.next(h.obs)
    check()
    // 3. The range, page by page; replace what is final after each.
    let from = start
    let fed = 0
    for await (const page of catchUpPages(read, inputs, start - 1, chunk, end, true)) {
      for (const k of page) subjects.get(k.key)!.next(k.obs)
      check()
      fed += page.length
      const last = page[page.length - 1].obs.time
      if (last > from) {
        let cut = pending.length // outputs are in time order: the final ones are a prefix
        while (cut > 0 && pending[cut - 1].time >= last) cut--
        const final = pending.slice(0, cut)
        pending = pending.slice(cut)
        await replace(from, last, final)
        from = last
      }
      opts.progress?.(fed)
    }
    await replace(from, end, pending)
    for (const w of writes.splice(0)) await w
    return { inputs: fed, outputs: await store.count(output, start, end) }
  } finally {
    sub.unsubscribe()
  }
}
