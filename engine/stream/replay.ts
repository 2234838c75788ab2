// Storage-first start of a pipeline (DESIGN.md "Data flow": replay is the live pipeline fed
// from the store; after a restart windows are rebuilt from the store, so a running computation
// continues where it stopped). Used by every runtime whose outputs are stored (virtual
// datapoints now; alerts and rollups later).
//
// openReplay subscribes the live inputs first and buffers them, then reads the last stored
// output (time L) and each input's window as of L (rebuild.ts). The consumer builds its
// pipeline on `input(key)` and subscribes it, then calls feed(), which replays, in event-time
// order across inputs (equal times in the inputs' order):
//   1. the windows as of L: they recreate the windows' state; their outputs are stored already;
//   2. the catch-up (catch-up.ts): every input stored after L, read in pages, so outputs that
//      were never computed (a stop, a kill -9 between storing inputs and their outputs) are;
//   3. the live observations buffered meanwhile, then live ones as they come.
// So no observation falls between the store and live; one stored while the store was read is
// in both, and its buffered copy is skipped (a counter must not count it twice).
//
// Deterministic in observation time: what is replayed and in which order depends only on what
// is stored (event times), not on when it arrived; a run with no output yet replays every
// stored input. Time triggers (every_minute, every_hour) stamp outputs with wall-clock
// boundaries: replay feeds their latest value, which they emit at the next boundary after the
// start (boundaries missed while the process was down are not made up).
//
// While feed() replays, outputs at or before L are already in the store (the previous run
// wrote them): `alreadyStored(time)` says so, and the consumer drops them before any state
// beyond the windows sees them (a counter's total), so nothing is written or counted twice.
// Beyond the catch-up horizon (MAX_CATCH_UP observations per input), the catch-up starts
// later, `onHorizon` is called, and outputs up to that start count as stored (skipped).
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { type Observable, Subscription } from 'rxjs'
import { Fanout, isListenable } from './channel.ts'
import type { Point } from '../store/port.ts'
import { CATCH_UP_CHUNK, catchUpBound, catchUpPages, MAX_CATCH_UP } from './catch-up.ts'
import { type ReadSeries, windowHistory } from './rebuild.ts'
import type { Obs, WindowRange } from './types.ts'

export interface ReplayInput {
  /** How the consumer names the input (a pin name, a condition name). */
  key: string
  /** The input series (catalog id). */
  series: number
  /** The window the consumer keeps of it: what is read back. */
  range: WindowRange
}

export interface ReplaySources {
  read: ReadSeries
  /** Observations of a series as they are stored, from now on (the observation bus). */
  live: (series: number) => Observable<Obs>
  /** Told when more than the horizon waits after the last output (the caller logs it). */
  onHorizon?: (h: { lastOutput: number; catchUpAfter: number }) => void
}

export interface ReplayLimits {
  /** Observations replayed at most per input (default MAX_CATCH_UP). */
  maxCatchUp?: number
  /** Points per store read (default CATCH_UP_CHUNK). */
  chunk?: number
}

export interface Replay {
  /** The observations of an input: its rebuilt window, the catch-up, then live ones (hot; listenable, stream/channel.ts). */
  input(key: string): Observable<Obs>
  /** The last stored output (a counter continues from its value), or undefined. */
  readonly last: Point | undefined
  /** Whether an output at `time` is already stored (or skipped): true only while feed() replays. */
  alreadyStored(time: number): boolean
  /**
   * Feeds windows, catch-up and buffered live observations; call once the pipeline is
   * subscribed. `pace` is awaited after each page of the catch-up (e.g. until the outputs are
   * written), so memory stays bounded; resolves when live observations flow straight through.
   */
  feed(pace?: () => Promise<void>): Promise<void>
  /** Ends the live subscriptions (and a feed under way). */
  close(): void
}

type Keyed = { key: string; obs: Obs }

/** Opens the inputs of a pipeline whose outputs go to the series `output`. */
export async function openReplay(sources: ReplaySources, inputs: readonly ReplayInput[], output: number, limits: ReplayLimits = {}): Promise<Replay> {
  const chunk = limits.chunk ?? CATCH_UP_CHUNK
  const subjects = new Map(inputs.map((i) => [i.key, new Fanout<Obs>()]))
  let buffer: Keyed[] | undefined = []
  let closed = false
  const live = new Subscription()
  for (const i of inputs) {
    const subject = subjects.get(i.key)!
    const onLive = (obs: Obs) => {
      if (buffer) buffer.push({ key: i.key, obs })
      else subject.next(obs)
    }
    const source = sources.live(i.series)
    live.add(isListenable(source) ? source.listen(onLive) : source.subscribe(onLive))
  }
  let last: Point | undefined
  let after: number
  const history: Keyed[] = []
  try {
    [last] = await sources.read(output, { limit: 1, from: 'last' })
    const lastOutput = last?.time ?? -Infinity
    const bound = await catchUpBound(sources.read, inputs, lastOutput, limits.maxCatchUp ?? MAX_CATCH_UP, chunk)
    after = bound.after
    if (bound.skipped) sources.onHorizon?.({ lastOutput, catchUpAfter: after })
    if (Number.isFinite(after)) {
      for (const i of inputs) for (const obs of await windowHistory(sources.read, i.series, i.range, after + 1)) history.push({ key: i.key, obs })
    }
  } catch (err) {
    live.unsubscribe()
    throw err
  }
  history.sort((a, b) => a.obs.time - b.obs.time) // stable: equal times keep input order
  const replayed = new Set<string>()
  const id = (k: Keyed) => `${k.key} ${k.obs.time} ${k.obs.value}`
  const next = (k: Keyed) => {
    replayed.add(id(k))
    subjects.get(k.key)!.next(k.obs)
  }

  let replaying = false
  return {
    input: (key) => {
      const s = subjects.get(key)
      if (!s) throw new Error(`openReplay: no input '${key}'`)
      return s.observable
    },
    last,
    alreadyStored: (time) => replaying && time <= after,
    feed: async (pace = yieldToLoop) => {
      if (!buffer || replaying) return
      replaying = true
      try {
        for (const h of history) next(h)
        history.length = 0
        for await (const page of catchUpPages(sources.read, inputs, after, chunk)) {
          if (closed) return
          for (const k of page) next(k)
          await pace()
          if (closed) return
        }
      } finally {
        replaying = false
      }
      // Live observations that arrived meanwhile and were not read back: late ones at or
      // before the last output included, they are new to this pipeline.
      const pending = buffer
      buffer = undefined
      for (const b of pending) if (!replayed.has(id(b))) subjects.get(b.key)!.next(b.obs)
      replayed.clear()
    },
    close: () => {
      closed = true
      live.unsubscribe()
    },
  }
}
