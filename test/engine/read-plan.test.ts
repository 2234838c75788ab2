import t from 'tap'
import { autoInterval, autoSamplingApplies, parseSamplerate, planRead } from '../../engine/read-plan.ts'

const M = 60_000_000

t.test('samplerate texts', async (t) => {
  t.equal(parseSamplerate('15m'), 15 * M)
  t.equal(parseSamplerate('1s'), 1_000_000)
  t.equal(parseSamplerate('2h'), 120 * M)
  t.equal(parseSamplerate('31d'), 31 * 86_400_000_000)
  for (const bad of ['0m', '15', 'm', '1.5h', '15M', '-1s', '1w', ' 1m']) t.equal(parseSamplerate(bad), undefined, bad)
})

t.test('raw plans', async (t) => {
  t.same(planRead({ start: 1, end: 9, max: 3 }), { kind: 'raw', query: { start: 1, end: 9 } })
  t.same(planRead({ start: 1, max: 3 }), { kind: 'raw', query: { start: 1, limit: 3, from: 'first' } })
  t.same(planRead({ end: 9, max: 3 }), { kind: 'raw', query: { end: 9, limit: 3, from: 'last' } })
  t.same(planRead({}), { kind: 'raw', query: { end: undefined, limit: 0, from: 'last' } })
})

t.test('sample plans: max counts intervals from the bucket holding start', async (t) => {
  t.same(planRead({ start: 7 * M, max: 4, interval: 15 * M }), { kind: 'sample', query: { start: 7 * M, end: 60 * M, interval: 15 * M } })
  t.same(planRead({ end: 31 * M, max: 2, interval: 15 * M }), { kind: 'sample', query: { start: 15 * M, end: 31 * M, interval: 15 * M } })
  t.same(planRead({ end: 30 * M, max: 2, interval: 15 * M }), { kind: 'sample', query: { start: 0, end: 30 * M, interval: 15 * M } }, 'end is excluded')
  t.same(planRead({ max: 5, interval: M }), { kind: 'sample', query: { interval: M }, lastBuckets: 5 })
  t.same(planRead({ start: 0, end: 10, max: 5, interval: M }), { kind: 'sample', query: { start: 0, end: 10, interval: M } })
})

t.test('automatic interval: whole seconds, at most N buckets', async (t) => {
  t.equal(autoInterval(0, 3600 * 1e6, 200), 18 * 1e6)
  t.equal(autoInterval(0, 1000 * 1e6, 3), 334 * 1e6)
  t.equal(autoInterval(0, 10, 200), 1e6, 'at least one second')
})

t.test('automatic sampling applies with both bounds and no samplerate; max plays no part (rule 2)', async (t) => {
  t.equal(autoSamplingApplies({ start: 0, end: 10 }), true)
  t.equal(autoSamplingApplies({ start: 0 }), false)
  t.equal(autoSamplingApplies({ end: 10 }), false)
  t.equal(autoSamplingApplies({ start: 0, end: 10, samplerate: '1m' }), false)
  t.same(planRead({ start: 0, end: 600 * M, max: 1, interval: 60 * M }), planRead({ start: 0, end: 600 * M, interval: 60 * M }), 'an automatic interval ignores max')
})
