// The watch registry of the Haystack watch ops (api/haystack/watches.ts) on the virtual clock:
// leases renew on use and close an idle watch, changes are reported once per poll (all with
// refresh), late observations do not replace curVal, watches are their user's, and the limits
// hold; the feed is asked for a project while a watch of it is open.
import t from 'tap'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { WatchRegistry } from '../../../api/haystack/watches.ts'

const S = 1_000_000

function setup(limits = {}) {
  const clock = new VirtualClock()
  const feed = { watched: [] as number[], async watch(p: number) { this.watched.push(p) }, unwatch(p: number) { this.watched = this.watched.filter((x) => x !== p) } }
  return { clock, feed, reg: new WatchRegistry(clock, limits, feed) }
}

t.test('first values, changes since the last poll, refresh', async (t) => {
  const { clock, reg } = setup()
  const w = await reg.open('ann', 1, 'my watch', reg.lease(undefined))
  reg.add(w, [{ series: 10, ref: 'a', cur: { time: 5, value: 1 } }, { series: 11, ref: 'b' }])
  t.same(reg.poll(w, false), [], 'nothing changed since watchSub')
  reg.observe([{ series: 11, time: clock.now(), value: 7 }, { series: 99, time: 1, value: 0 }])
  t.same(reg.poll(w, false), [{ series: 11, ref: 'b', cur: { time: clock.now(), value: 7 } }])
  t.same(reg.poll(w, false), [], 'reported once')
  reg.observe([{ series: 10, time: 4, value: 100 }])
  t.same(reg.poll(w, false), [], 'a late observation is no change of curVal')
  t.same(reg.poll(w, true).map((p) => [p.ref, p.cur?.value]), [['a', 1], ['b', 7]], 'refresh answers every point')
  reg.remove(w, [10])
  reg.observe([{ series: 10, time: 9, value: 3 }])
  t.same(reg.poll(w, true).map((p) => p.ref), ['b'], 'a removed point is no longer watched')
})

t.test('leases: clamped, renewed on use, an idle watch closes', async (t) => {
  const { clock, reg, feed } = setup()
  t.equal(reg.lease(undefined), 60 * S, 'default one minute')
  t.equal(reg.lease(0.1 * S), 1 * S, 'at least a second')
  t.equal(reg.lease(10 * 3600 * S), 3600 * S, 'at most an hour')
  t.throws(() => reg.lease(-5), /lease must be a positive duration/)
  const w = await reg.open('ann', 1, 'w', 30 * S)
  t.same(feed.watched, [1], 'the project is watched')
  clock.advance(29 * S)
  reg.touch(w)
  clock.advance(29 * S)
  t.equal(reg.find('ann', 1, w.id), w, 'renewed by use')
  clock.advance(2 * S)
  t.equal(reg.find('ann', 1, w.id), undefined, 'closed 30 s after its last use')
  t.same(feed.watched, [], 'the feed forgets the project')
  t.equal(reg.size, 0)
})

t.test('a watch is its user\'s and its project\'s', async (t) => {
  const { reg } = setup()
  const w = await reg.open('ann', 1, 'w', S)
  t.equal(reg.find('bob', 1, w.id), undefined)
  t.equal(reg.find('ann', 2, w.id), undefined)
  t.equal(reg.find('ann', 1, 'w-nothing'), undefined)
  t.equal(reg.find('ann', 1, w.id), w)
})

t.test('limits: watches per process and per user, points per watch', async (t) => {
  const { reg } = setup({ maxWatches: 3, maxWatchesPerUser: 2, maxPointsPerWatch: 2 })
  const w = await reg.open('ann', 1, 'a', S)
  await reg.open('ann', 1, 'b', S)
  await t.rejects(reg.open('ann', 1, 'c', S), /you have 2 open watches, the limit per user/)
  await reg.open('bob', 1, 'c', S)
  await t.rejects(reg.open('cid', 1, 'd', S), /this server holds 3 watches, its limit/)
  reg.add(w, [{ series: 1, ref: 'a' }, { series: 2, ref: 'b' }])
  reg.add(w, [{ series: 2, ref: 'b' }])
  t.throws(() => reg.add(w, [{ series: 3, ref: 'c' }]), /a watch holds at most 2 points; this one holds 2/)
  reg.stop()
  t.equal(reg.size, 0)
})
