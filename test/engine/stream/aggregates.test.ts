import t from 'tap'
import { aggregateWindow } from '../../../engine/stream/aggregates.ts'
import { AGGREGATES, type Obs } from '../../../engine/stream/types.ts'

const S = 1_000_000
/** Observations at the given seconds with the given values. */
const at = (...pairs: [number, number][]): Obs[] => pairs.map(([s, value]) => ({ time: s * S, value }))

// Values held: 10 for 10 s, 20 for 20 s, 40 (newest, weight 0).
const W = at([0, 10], [10, 20], [30, 40])

t.test('an empty window has no aggregate', async (t) => {
  for (const k of AGGREGATES) t.equal(aggregateWindow(k, []), null, k)
})

t.test('hand-computed aggregates', async (t) => {
  t.equal(aggregateWindow('last', W), 40)
  t.equal(aggregateWindow('first', W), 10)
  t.equal(aggregateWindow('sum', W), 70)
  t.equal(aggregateWindow('mean', W), 70 / 3)
  t.equal(aggregateWindow('median', W), 20)
  t.equal(aggregateWindow('max', W), 40)
  t.equal(aggregateWindow('min', W), 10)
  t.equal(aggregateWindow('timeweighted_mean', W), (10 * 10 + 20 * 20) / 30, 'newest value has weight 0')
  t.equal(aggregateWindow('integral', W), 10 * 10 + 20 * 20, 'step integration, value × seconds')
})

t.test('median of an even count is the mean of the two middle values', async (t) => {
  t.equal(aggregateWindow('median', at([0, 4], [1, 1], [2, 3], [3, 2])), 2.5)
  t.equal(aggregateWindow('median', at([0, 5], [1, -1])), 2)
  t.equal(aggregateWindow('median', at([0, 7])), 7)
})

t.test('max and min with negatives', async (t) => {
  const w = at([0, -3], [1, -7], [2, -1])
  t.equal(aggregateWindow('max', w), -1)
  t.equal(aggregateWindow('min', w), -7)
})

t.test('timeweighted_mean: one observation, or all at one time, gives the newest value', async (t) => {
  t.equal(aggregateWindow('timeweighted_mean', at([5, 3])), 3)
  t.equal(aggregateWindow('timeweighted_mean', [{ time: 1, value: 2 }, { time: 1, value: 9 }]), 9)
})

t.test('timeweighted_mean differs from mean with uneven spacing', async (t) => {
  // 0 held 1 s, 100 held 9 s: (0·1 + 100·9) / 10 = 90; the plain mean of 0, 100, 0 is 33.3
  const w = at([0, 0], [1, 100], [10, 0])
  t.equal(aggregateWindow('timeweighted_mean', w), 90)
  t.equal(aggregateWindow('mean', w), 100 / 3)
})

t.test('integral: fewer than two observations give 0 (spec)', async (t) => {
  t.equal(aggregateWindow('integral', at([3, 50])), 0)
  t.equal(aggregateWindow('integral', at([0, 2], [0.5, 100])), 1, '2 held for half a second')
  t.equal(aggregateWindow('integral', at([0, 3600], [3600, 0])), 3600 * 3600, 'a kW value over an hour: kW·s')
})
