// The catch-up part of a storage-first start (DESIGN.md "Data flow": after a restart a running
// computation continues where it stopped). Inputs stored after the last stored output were
// never computed (the process stopped, or was killed, before it got to them): they are read
// back from the store and replayed in event-time order across all inputs, so the outputs
// equal those of a run that never stopped.
//
// Bounded: each input is read in pages of at most `chunk` points (one store read each), and
// the merge holds one page per input. The catch-up replays at most `max` observations per
// input (MAX_CATCH_UP): when more are stored after the last output, the catch-up starts at
// the first of the newest `max` of the input that has the most (the older ones are skipped
// and the caller logs it; their outputs stay missing). A horizon in observations, not in
// time, because event times say nothing about how much there is to compute.
import type { Point } from '../store/port.ts'
import type { ReadSeries } from './rebuild.ts'

/** Observations replayed at most per input on one start (~28 h of a 1 Hz input). */
export const MAX_CATCH_UP = 100_000
/** Points per store read. */
export const CATCH_UP_CHUNK = 5_000

export interface CatchUpInput { key: string; series: number }

/**
 * Where the catch-up starts: the exclusive lower bound `after` (the last output's time), or
 * a later bound when some input holds more than `max` observations after it; `skipped` says
 * whether observations were left out.
 */
export async function catchUpBound(read: ReadSeries, inputs: readonly CatchUpInput[], after: number, max = MAX_CATCH_UP, chunk = CATCH_UP_CHUNK): Promise<{ after: number; skipped: boolean }> {
  const start = Number.isFinite(after) ? after + 1 : undefined
  let bound = after
  for (const i of inputs) {
    // Walk back from the newest in pages until `max` points after `after` are seen.
    let end: number | undefined
    let left = max
    for (;;) {
      const want = Math.min(chunk, left)
      const back = await read(i.series, { start, end, limit: want, from: 'last' })
      left -= back.length
      if (back.length < want) break // fewer than max after `after`: all of them are replayed
      if (left === 0) {
        bound = Math.max(bound, back[0].time - 1) // replay from the max-th newest on
        break
      }
      end = back[0].time
    }
  }
  return { after: bound, skipped: bound > after }
}

/**
 * The observations of every input with time > `after` (and < `before`, when given), merged in
 * event-time order (equal times keep the inputs' order), in pages of at most `chunk`. Each
 * input is read forwards in pages as the merge consumes it, so what was stored meanwhile is
 * read too. A range replay (engine/vdp/range-replay.ts) reads a bounded range this way.
 */
export async function* catchUpPages(read: ReadSeries, inputs: readonly CatchUpInput[], after: number, chunk = CATCH_UP_CHUNK, before?: number, readAhead = false): AsyncGenerator<{ key: string; obs: Point }[]> {
  const start = Number.isFinite(after) ? after + 1 : undefined
  const end = before !== undefined && Number.isFinite(before) ? before : undefined
  // With `readAhead` (a range replay: nothing else waits on it), each input's next page is
  // read as soon as its current one is (the store reads off the main thread), so the merge
  // computes meanwhile instead of waiting for each read in turn; one more page per input is
  // held. Without it (a restart's catch-up) a page is read only when the merge needs it, so
  // the caller's pacing (outputs written first) bounds what is read.
  const ahead = (series: number, page: Point[]): (() => Promise<Point[]>) | undefined => {
    if (page.length < chunk) return undefined // a short page is the last one
    const next = () => read(series, { start: page[page.length - 1].time + 1, end, limit: chunk, from: 'first' })
    if (!readAhead) return next
    const early = next()
    early.catch(() => { /* awaited when needed */ })
    return () => early
  }
  const cursors = await Promise.all(inputs.map(async (i) => {
    const page = await read(i.series, { start, end, limit: chunk, from: 'first' })
    return { input: i, page, at: 0, next: ahead(i.series, page) }
  }))
  let out: { key: string; obs: Point }[] = []
  for (;;) {
    let min: (typeof cursors)[number] | undefined
    for (const c of cursors) if (c.at < c.page.length && (!min || c.page[c.at].time < min.page[min.at].time)) min = c
    if (!min) break
    out.push({ key: min.input.key, obs: min.page[min.at++] })
    if (min.at === min.page.length && min.next) {
      min.page = await min.next()
      min.at = 0
      min.next = ahead(min.input.series, min.page)
    }
    if (out.length === chunk) {
      yield out
      out = []
    }
  }
  if (out.length > 0) yield out
}
