// Storage-first rebuild of a window (engine/stream/rebuild.ts) against the real SQLite store:
// what each window shape reads back, and that the window fed with it is the window it was.
import t from 'tap'
import { from } from 'rxjs'
import { rangeWindow } from '../../../engine/stream/range-window.ts'
import { windowHistory } from '../../../engine/stream/rebuild.ts'
import type { Obs, WindowRange } from '../../../engine/stream/types.ts'
import type { RangeQuery } from '../../../engine/store/port.ts'
import { openSqliteStore } from '../../../engine/store/sqlite-store.ts'

const S = 1_000_000
const M = 60 * S
const iso = (s: string) => Date.parse(s) * 1000
const o = (time: number, value: number): Obs => ({ time, value })

t.test('windowHistory reads back what each window shape held at the newest observation', async (t) => {
  const raw = await openSqliteStore({ dir: t.testdir() })
  t.teardown(() => raw.close())
  const put = (series: number, ...obs: Obs[]) => raw.append(obs.map((x) => ({ series, ...x })))
  const read = (s: number, q: RangeQuery) => raw.read(s, q)
  await put(1, ...[0, 1, 2, 3, 4, 5].map((m) => o(m * M, m)))
  t.same(await windowHistory(read, 1, { kind: 'count', n: 2 }), [o(4 * M, 4), o(5 * M, 5)], 'count: the last n')
  t.same((await windowHistory(read, 1, { kind: 'time', us: 2 * M })).map((x) => x.value), [3, 4, 5],
    'time: from newest − d on (the window itself then drops the one at exactly newest − d)')
  t.same(await windowHistory(read, 1, { kind: 'none' }), [o(5 * M, 5)], 'none: the newest')
  t.same(await windowHistory(read, 2, { kind: 'time', us: M }), [], 'an empty series has no history')
  t.same(await windowHistory(read, 1, { kind: 'count', n: 2 }, 4 * M), [o(2 * M, 2), o(3 * M, 3)], 'as of a bound (exclusive): the window at the newest before it')
  t.same((await windowHistory(read, 1, { kind: 'time', us: 2 * M }, 3 * M + 1)).map((x) => x.value), [1, 2, 3], 'time, as of a bound')
  t.same(await windowHistory(read, 1, { kind: 'none' }, 0), [], 'nothing before the bound: no history')

  const day = iso('2024-03-31T00:00:00Z')
  await put(3, o(day - M, 1), o(day, 2), o(day + 8 * 60 * M, 3), o(day + 9 * 60 * M, 4))
  t.same((await windowHistory(read, 3, { kind: 'cron', start: '0 8 * * *', end: '0 17 * * *' })).map((x) => x.value), [3, 4], 'cron: the open window since 08:00')
  t.same(await windowHistory(read, 3, { kind: 'cron', start: '0 8 * * *', end: '0 9 * * *' }), [], 'cron: newest between windows holds nothing')

  // Fed to the window, the history recreates it.
  const range: WindowRange = { kind: 'time', us: 2 * M }
  const windows: Obs[][] = []
  from(await windowHistory(read, 1, range)).pipe(rangeWindow(range)).subscribe((w) => windows.push(w))
  t.same(windows.at(-1)!.map((x) => x.value), [4, 5], 'the rebuilt window is (newest − 2 min, newest]')
})
