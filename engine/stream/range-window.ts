// rangeWindow: the window of a data range (spec part 2, "Pin configuration", "Data range
// shapes"; a virtual datapoint's pin, later an alert's condition). Keeps the observations of
// the range by EVENT time, in ascending time order, and emits a copy of the window after
// every input that lands in it.
//
// - time {us}: observations with time > latest − us, latest being the newest event time seen
//   (so a 1h window holds (latest − 1h, latest]).
// - count {n}: the newest n observations by event time.
// - cron {start, end}: see cron-range.ts; the window is emptied when an observation opens a
//   newer window, and observations between windows are ignored.
// - none: each observation is forwarded alone, in arrival order, even a late one (spec: "With
//   no data_range, observations are forwarded as they are").
//
// Out-of-order observations are inserted at their place; one too old for the window (older
// than the time range, older than the n kept, before the current cron window) is dropped and
// nothing is emitted. An observation with the time of one already in the window replaces its
// value (the store keeps one value per time too) and the window is emitted.
// Bound: a window never holds more than MAX_WINDOW_SIZE observations (count ranges are
// limited to it by their configuration, e.g. engine/vdp/config.ts); beyond it the oldest are
// dropped (a time or cron range over a fast series would otherwise grow without limit).
import { Observable, type OperatorFunction } from 'rxjs'
import { CronRange } from './cron-range.ts'
import type { Obs, WindowRange } from './types.ts'

export const MAX_WINDOW_SIZE = 100_000

/** @param maxSize the bound of time and cron windows (tests lower it) */
export function rangeWindow(range: WindowRange, maxSize = MAX_WINDOW_SIZE): OperatorFunction<Obs, Obs[]> {
  return (source) => new Observable<Obs[]>((subscriber) => {
    const keep = windowKeeper(range, maxSize)
    return source.subscribe({
      next: (o) => {
        const window = keep(o)
        if (window) subscriber.next(window.slice()) // a copy: the keeper goes on changing its window
      },
      error: (err) => subscriber.error(err),
      complete: () => subscriber.complete(),
    })
  })
}

/**
 * The state of one window: takes an observation and returns the window to emit, or undefined.
 * The array returned is the keeper's own and changes with the next observation: read it at once
 * (an aggregate, pipeline.ts) or copy it (rangeWindow). No copy per observation on the hot path.
 */
export function windowKeeper(range: WindowRange, maxSize = MAX_WINDOW_SIZE): (o: Obs) => readonly Obs[] | undefined {
  const win: Obs[] = []
  switch (range.kind) {
    case 'none':
      return (o) => {
        win[0] = o
        return win
      }
    case 'count':
      return (o) => {
        if (win.length >= range.n && o.time < win[0].time) return undefined
        insert(win, o)
        const excess = win.length - range.n
        if (excess === 1) win.shift() // the usual in-order case: no array of removed items
        else if (excess > 0) win.splice(0, excess)
        return win
      }
    case 'time': {
      let latest = -Infinity
      return (o) => {
        if (o.time > latest) latest = o.time
        const oldest = latest - range.us // exclusive
        if (o.time <= oldest) return undefined
        insert(win, o)
        let drop = 0
        while (drop < win.length && win[drop].time <= oldest) drop++
        drop = Math.max(drop, win.length - maxSize)
        if (drop === 1) win.shift()
        else if (drop > 0) win.splice(0, drop)
        return win
      }
    }
    case 'cron': {
      const cron = new CronRange(range.start, range.end)
      let current: number | undefined // start of the window held in `win`
      return (o) => {
        const w = cron.windowOf(o.time)
        if (!w) return undefined
        if (current === undefined || w.start > current) {
          current = w.start
          win.length = 0
        } else if (w.start < current) {
          return undefined // a late observation of a window already left behind
        }
        insert(win, o)
        if (win.length > maxSize) win.splice(0, win.length - maxSize)
        return win
      }
    }
  }
}

/** Inserts `o` in time order; an observation with the same time is replaced. */
function insert(win: Obs[], o: Obs): void {
  const n = win.length
  if (n === 0 || o.time > win[n - 1].time) {
    win.push(o)
    return
  }
  let lo = 0
  let hi = n
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (win[mid].time < o.time) lo = mid + 1
    else hi = mid
  }
  if (lo < n && win[lo].time === o.time) win[lo] = o
  else win.splice(lo, 0, o)
}
