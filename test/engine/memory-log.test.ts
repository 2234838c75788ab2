// The in-memory observation log: the shared contract plus its retention bound.
import t from 'tap'
import { openMemoryLog } from '../../engine/log/memory-log.ts'
import { Collector, logContract, until } from './log-contract.ts'

logContract(t, 'memory', async () => openMemoryLog())

t.test('memory: retention bounds a partition by observations; a group resumes after its commit', async (t) => {
  const log = openMemoryLog({ partitions: 1, retainObservations: 10 })
  t.teardown(() => log.close())
  for (let i = 0; i < 8; i++) await log.publish(1, [{ series: 1, time: i, value: i }, { series: 2, time: i, value: i }])
  const late = await new Collector().start(log, 'late')
  // One partition keeps publish order: once the last record (value 7) is in, every retained one is.
  await until(() => late.values().includes(7), 2_000, 'retained records up to the last one')
  t.same([...new Set(late.values())], [3, 4, 5, 6, 7], 'only the newest 10 observations were retained')
  await late.sub.stop()
  await log.publish(1, [{ series: 1, time: 8, value: 8 }])
  const again = await new Collector().start(log, 'late')
  await until(() => again.count() >= 1, 2_000, 'the new record')
  t.same(again.values(), [8], 'the group resumes after its commit')
  await again.sub.stop()
  await log.publish(1, Array.from({ length: 50 }, (_, i) => ({ series: 3, time: i, value: i })))
  const fresh = await new Collector().start(log, 'fresh')
  await until(() => fresh.count() >= 50, 2_000, 'the big record')
  t.equal(fresh.records.length, 1, 'a record larger than the retention is kept alone')
  await fresh.sub.stop()
})

t.test('memory: partitions must be a positive integer', async (t) => {
  t.throws(() => openMemoryLog({ partitions: 0 }), /partitions/)
})
