// Storage-first start of a pipeline (DESIGN.md "Data flow": replay is the live pipeline fed
// from the store; after a restart windows are rebuilt from the store). Used by every runtime
// whose outputs are stored (virtual datapoints now; alerts and rollups later).
//
// openReplay subscribes the live inputs first and buffers them, then reads each input's
// window back from the store (rebuild.ts) and the last stored output. The consumer builds its
// pipeline on `input(key)` and subscribes it, then calls feed(): the history of all inputs in
// event-time order, then the buffered live observations, then live ones as they come. So no
// observation falls between history and live; one stored while the history was read is in
// both, and its buffered copy is skipped (a counter must not count it twice).
//
// While feed() runs, outputs at or before the last stored output are already in the store
// (the previous run wrote them): `alreadyStored(time)` says so, and the consumer drops them
// before any state beyond the windows sees them (a counter's total), so nothing is written
// or counted twice.
import { Subject, Subscription, type Observable } from 'rxjs'
import type { Point } from '../store/port.ts'
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
}

export interface Replay {
  /** The observations of an input: its rebuilt window, then live ones. */
  input(key: string): Observable<Obs>
  /** The last stored output (a counter continues from its value), or undefined. */
  readonly last: Point | undefined
  /** Whether an output at `time` is already stored: true only while feed() replays. */
  alreadyStored(time: number): boolean
  /** Feeds history then buffered live observations; call once the pipeline is subscribed. */
  feed(): void
  /** Ends the live subscriptions. */
  close(): void
}

/** Opens the inputs of a pipeline whose outputs go to the series `output`. */
export async function openReplay(sources: ReplaySources, inputs: readonly ReplayInput[], output: number): Promise<Replay> {
  const subjects = new Map(inputs.map((i) => [i.key, new Subject<Obs>()]))
  let buffer: { key: string; obs: Obs }[] | undefined = []
  const live = new Subscription()
  for (const i of inputs) {
    live.add(sources.live(i.series).subscribe((obs) => {
      if (buffer) buffer.push({ key: i.key, obs })
      else subjects.get(i.key)!.next(obs)
    }))
  }
  let last: Point | undefined
  const history: { key: string; obs: Obs }[] = []
  try {
    [last] = await sources.read(output, { limit: 1, from: 'last' })
    for (const i of inputs) for (const obs of await windowHistory(sources.read, i.series, i.range)) history.push({ key: i.key, obs })
  } catch (err) {
    live.unsubscribe()
    throw err
  }
  history.sort((a, b) => a.obs.time - b.obs.time) // stable: equal times keep input order
  const replayed = new Set(history.map((h) => `${h.key} ${h.obs.time} ${h.obs.value}`))

  const lastStored = last?.time ?? -Infinity
  let replaying = false
  return {
    input: (key) => {
      const s = subjects.get(key)
      if (!s) throw new Error(`openReplay: no input '${key}'`)
      return s.asObservable()
    },
    last,
    alreadyStored: (time) => replaying && time <= lastStored,
    feed: () => {
      if (!buffer) return
      replaying = true
      for (const h of history) subjects.get(h.key)!.next(h.obs)
      const pending = buffer
      buffer = undefined
      for (const b of pending) if (!replayed.has(`${b.key} ${b.obs.time} ${b.obs.value}`)) subjects.get(b.key)!.next(b.obs)
      replaying = false
    },
    close: () => live.unsubscribe(),
  }
}
