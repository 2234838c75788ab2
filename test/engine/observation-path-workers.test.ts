// The scaled observation path with several workers (issue 17 item 3, issue 36 item 5): the
// workers' members of the store group split the log's partitions, each worker owns the
// projects of its partitions (owns(), onShare), a second startWorker() joins no second member,
// and the store group's handler stores first and publishes on the bus only what was stored.
import t from 'tap'
import { openMemoryLog } from '../../engine/log/memory-log.ts'
import { openScaledPath, storeThenBus } from '../../engine/observation-path/scaled.ts'
import { ObservationBus } from '../../engine/observation-bus.ts'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { waitFor } from '../helpers/wait.ts'

t.test('two workers split the partitions: each owns the projects of its own, told through onShare', async (t) => {
  const raw = await openSqliteStore({ dir: t.testdir() })
  const log = openMemoryLog({ partitions: 2 })
  const a = openScaledPath({ store: raw, log })
  const b = openScaledPath({ store: raw, log })
  t.teardown(async () => { await a.close(); await b.close().catch(() => {}) })
  t.equal(a.owns(4), false, 'no worker started: owns nothing')
  t.same(a.consumerLag(), [], 'no worker started: no consumer lag')
  const sharesA: number[][] = []
  const sharesB: number[][] = []
  await a.startWorker((share) => sharesA.push(share))
  t.same(sharesA, [[0, 1]], 'alone: both partitions')
  t.ok(a.owns(4) && a.owns(5), 'owns the projects of both partitions')
  await a.startWorker((share) => sharesA.push(share))
  t.same(sharesA, [[0, 1]], 'a second startWorker joins no second member')
  await b.startWorker((share) => sharesB.push(share))
  await waitFor(() => sharesB.length === 1, { what: 'the second worker\'s share' })
  t.same(sharesA, [[0, 1], [0]], 'the first worker gave up partition 1')
  t.same(sharesB, [[1]])
  t.equal(a.owns(4), true, 'project 4 (partition 0) is the first worker\'s')
  t.equal(a.owns(5), false, 'project 5 (partition 1) is not')
  t.equal(b.owns(5), true)
  t.equal(b.owns(4), false)
  t.same(a.metrics(), {})
  t.same(a.consumerLag(), [], 'a log without lag figures (the memory log; Kafka\'s: test/engine/kafka-log.test.ts): none')
  await a.drained()
})

t.test('the store group\'s handler: stored first, then on the bus; a failed write publishes nothing', async (t) => {
  const bus = new ObservationBus()
  const seen: number[] = []
  bus.series(1).subscribe((o: { value: number }) => { seen.push(o.value) })
  const appended: number[][] = []
  let fail = true
  const handler = storeThenBus({ append: async (batch) => { if (fail) throw new Error('store down'); appended.push(batch.map((o) => o.value)); t.same(seen, [], 'nothing on the bus before the store has it') } }, bus)
  const records = [{ project: 1, observations: [{ series: 1, time: 1, value: 1 }] }, { project: 1, observations: [{ series: 1, time: 2, value: 2 }, { series: 1, time: 3, value: 3 }] }]
  await t.rejects(handler(records as any), /store down/)
  t.same(seen, [], 'a failed write: nothing published')
  fail = false
  await handler(records as any)
  t.same(appended, [[1, 2, 3]], 'one append of every record\'s observations')
  await waitFor(() => seen.length === 3, { what: 'the three observations on the bus' })
  t.same(seen, [1, 2, 3])
})
