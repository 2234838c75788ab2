import t from 'tap'
import { from, type OperatorFunction } from 'rxjs'
import { MAX_WINDOW_SIZE, rangeWindow } from '../../../engine/stream/range-window.ts'
import type { Obs } from '../../../engine/stream/types.ts'

const S = 1_000_000
const M = 60 * S
const H = 60 * M
const o = (time: number, value = time): Obs => ({ time, value })
const iso = (s: string) => Date.parse(s) * 1000

function run<T, R>(input: T[], op: OperatorFunction<T, R>): R[] {
  const out: R[] = []
  from(input).pipe(op).subscribe((v) => out.push(v))
  return out
}
const times = (w: Obs[]) => w.map((x) => x.time)

t.test('count: the newest n by event time', async (t) => {
  const out = run([o(1), o(2), o(3), o(4)], rangeWindow({ kind: 'count', n: 2 }))
  t.same(out.map(times), [[1], [1, 2], [2, 3], [3, 4]])
})

t.test('count: late observations are inserted in order; too old for a full window: dropped, nothing emitted', async (t) => {
  const out = run([o(10), o(5), o(30), o(20), o(1), o(40)], rangeWindow({ kind: 'count', n: 3 }))
  t.same(out.map(times), [[10], [5, 10], [5, 10, 30], [10, 20, 30], [20, 30, 40]])
})

t.test('count: a duplicate time replaces the value', async (t) => {
  const out = run([o(1, 1), o(2, 2), o(1, 9)], rangeWindow({ kind: 'count', n: 2 }))
  t.same(out[2], [o(1, 9), o(2, 2)])
  const full = run([o(1, 1), o(2, 2), o(3, 3), o(2, 7)], rangeWindow({ kind: 'count', n: 2 }))
  t.same(full.at(-1), [o(2, 7), o(3, 3)], 'the oldest kept can be replaced too')
})

t.test('count 1: the newest observation; a late one is dropped', async (t) => {
  const out = run([o(5), o(3), o(7)], rangeWindow({ kind: 'count', n: 1 }))
  t.same(out.map(times), [[5], [7]])
})

t.test('none: every observation on its own, even a late one', async (t) => {
  const out = run([o(5), o(3), o(3, 1)], rangeWindow({ kind: 'none' }))
  t.same(out, [[o(5)], [o(3)], [o(3, 1)]])
})

t.test('time: keeps time > latest − duration', async (t) => {
  const out = run([o(0), o(5 * M), o(10 * M), o(15 * M), o(21 * M)], rangeWindow({ kind: 'time', us: 15 * M }))
  t.same(out.map(times), [[0], [0, 5 * M], [0, 5 * M, 10 * M], [5 * M, 10 * M, 15 * M], [10 * M, 15 * M, 21 * M]],
    'at 15m the observation at 0 (exactly 15m old) leaves')
})

t.test('time: out of order and duplicates', async (t) => {
  const w = rangeWindow({ kind: 'time', us: 10 * S })
  const out = run([o(20 * S), o(15 * S), o(11 * S), o(10 * S), o(25 * S), o(20 * S, -1), o(14 * S)], w)
  t.same(out.map(times), [[20 * S], [15 * S, 20 * S], [11 * S, 15 * S, 20 * S], [20 * S, 25 * S], [20 * S, 25 * S]],
    '10s is too old at latest 20s; at 25s everything up to 15s leaves; 14s arrives too late')
  t.same(out.at(-1)![0], o(20 * S, -1), 'the duplicate replaced the value')
})

t.test('time: a 1h window across the 2024 EU DST change keeps exactly one hour (all UTC)', async (t) => {
  // Europe switched to summer time at 2024-03-31T01:00Z; event time is UTC, so nothing changes.
  const start = iso('2024-03-30T23:00:00Z')
  const input = Array.from({ length: 17 }, (_, i) => o(start + i * 15 * M, i)) // to 03:00Z
  const out = run(input, rangeWindow({ kind: 'time', us: H }))
  const at = (s: string) => out[input.findIndex((x) => x.time === iso(s))]
  t.same(times(at('2024-03-31T01:00:00Z')), [iso('2024-03-31T00:15:00Z'), iso('2024-03-31T00:30:00Z'), iso('2024-03-31T00:45:00Z'), iso('2024-03-31T01:00:00Z')])
  t.same(times(at('2024-03-31T01:30:00Z')), [iso('2024-03-31T00:45:00Z'), iso('2024-03-31T01:00:00Z'), iso('2024-03-31T01:15:00Z'), iso('2024-03-31T01:30:00Z')])
  for (const w of out.slice(4)) {
    t.equal(w.length, 4)
    t.equal(w.at(-1)!.time - w[0].time, 45 * M, 'four quarter hours: (latest − 1h, latest]')
  }
})

t.test('time and cron windows are bounded', async (t) => {
  const input = Array.from({ length: 25 }, (_, i) => o(i * S))
  t.same(times(run(input, rangeWindow({ kind: 'time', us: H }, 20)).at(-1)!), input.slice(5).map((x) => x.time), 'the oldest were dropped')
  t.same(times(run(input, rangeWindow({ kind: 'cron', start: '0 0 * * *', end: '0 0 * * *' }, 20)).at(-1)!), input.slice(5).map((x) => x.time))
  t.equal(MAX_WINDOW_SIZE, 100_000)
})

t.test('cron: windows from start to end, observations between windows ignored', async (t) => {
  // Working hours 08:00-17:00 UTC, every day.
  const w = rangeWindow({ kind: 'cron', start: '0 8 * * *', end: '0 17 * * *' })
  const input = [
    o(iso('2024-03-30T07:59:00Z'), 1), // before the window of the day: belongs to yesterday's, closed at 17:00
    o(iso('2024-03-30T08:00:00Z'), 2), // opens the window (start is inclusive)
    o(iso('2024-03-30T12:00:00Z'), 3),
    o(iso('2024-03-30T10:00:00Z'), 4), // late, same window: inserted
    o(iso('2024-03-30T17:00:00Z'), 5), // end is exclusive: ignored
    o(iso('2024-03-30T23:00:00Z'), 6), // between windows: ignored
    o(iso('2024-03-31T09:00:00Z'), 7), // next day: a new window
    o(iso('2024-03-30T11:00:00Z'), 8), // late, from a window already left: dropped
    o(iso('2024-03-31T09:30:00Z'), 9),
  ]
  const out = run(input, w)
  t.same(out.map((x) => x.map((y) => y.value)), [[2], [2, 3], [2, 4, 3], [7], [7, 9]])
})

t.test('cron: equal start and end tile time (one window per UTC day)', async (t) => {
  const w = rangeWindow({ kind: 'cron', start: '0 0 * * *', end: '0 0 * * *' })
  const input = [o(iso('2024-03-30T00:00:00Z'), 1), o(iso('2024-03-30T23:59:59Z'), 2), o(iso('2024-03-31T00:00:00Z'), 3), o(iso('2024-03-31T12:00:00Z'), 4)]
  t.same(run(input, w).map((x) => x.map((y) => y.value)), [[1], [1, 2], [3], [3, 4]])
})

t.test('cron: a start before the end closes the window early (a new start opens a new window)', async (t) => {
  const w = rangeWindow({ kind: 'cron', start: '0 * * * *', end: '0 0 * * *' }) // hourly starts, daily end
  const input = [o(iso('2024-03-30T10:10:00Z'), 1), o(iso('2024-03-30T10:50:00Z'), 2), o(iso('2024-03-30T11:05:00Z'), 3)]
  t.same(run(input, w).map((x) => x.map((y) => y.value)), [[1], [1, 2], [3]])
})

t.test('state is per subscription', async (t) => {
  const src = from([o(1), o(2)])
  const op = rangeWindow({ kind: 'count', n: 5 })
  const a: Obs[][] = []
  src.pipe(op).subscribe((w) => a.push(w))
  src.pipe(op).subscribe((w) => a.push(w))
  t.same(a.map(times), [[1], [1, 2], [1], [1, 2]])
})

t.test('emitted windows are copies', async (t) => {
  const out = run([o(1), o(2)], rangeWindow({ kind: 'count', n: 5 }))
  t.same(out[0].map((x) => x.time), [1], 'the first window did not grow')
})

t.test('errors and completion pass through', async (t) => {
  let done = false
  from([o(1)]).pipe(rangeWindow({ kind: 'time', us: S })).subscribe({ complete: () => { done = true } })
  t.ok(done)
})
