// Times of the agent's observations (edge/point-stamps.ts): never two of one point in the same
// millisecond, order kept, other points untouched, a clock stepped back taken as it is.
import t from 'tap'
import { MAX_SHIFT_MS, PointStamps } from '../../edge/point-stamps.ts'

t.test('readings of one point in the same millisecond get successive times, in the order read', async (t) => {
  const s = new PointStamps()
  t.same([s.stamp('a', 1000), s.stamp('a', 1000), s.stamp('a', 1000)], [1000, 1001, 1002])
  t.equal(s.stamp('a', 1001), 1003, 'a reading of the next millisecond follows the shifted ones')
  t.equal(s.stamp('a', 1010), 1010, 'a later reading keeps its own time')
  t.equal(s.stamp('b', 1000), 1000, 'another point is not shifted by this one')
})

t.test('a clock stepped back by more than the shift limit is taken as it is', async (t) => {
  const s = new PointStamps()
  s.stamp('a', 1_000_000)
  t.equal(s.stamp('a', 1_000_000 - MAX_SHIFT_MS + 1), 1_000_001, 'a small step back: after the previous')
  t.equal(s.stamp('a', 1_000_000 - 60_000), 1_000_000 - 60_000, 'a minute back: the clock\'s time')
})
