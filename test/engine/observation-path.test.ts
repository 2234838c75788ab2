// The observation paths of both modes (engine/observation-path/): what reaches the bus is
// always stored first. The scaled path runs here on the in-memory log (the log port's test
// double) and the SQLite store: the same code the worker runs on Kafka and QuestDB.
import t from 'tap'
import { openMemoryLog } from '../../engine/log/memory-log.ts'
import { openEmbeddedPath } from '../../engine/observation-path/embedded.ts'
import { openScaledPath } from '../../engine/observation-path/scaled.ts'
import type { TimeseriesStore } from '../../engine/store/port.ts'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { waitFor } from '../helpers/wait.ts'

/** Records, for each observation the bus carries, whether the store already held it. */
function watch(path: { bus: { series(s: number): { subscribe(f: (o: { time: number; value: number }) => void): unknown } } }, store: TimeseriesStore, series: number) {
  const seen: { time: number; value: number; stored: boolean }[] = []
  const checks: Promise<void>[] = []
  path.bus.series(series).subscribe((o) => {
    // In bus order; the reads (asked at once) may finish in any order in the store's reader pool.
    const entry = { ...o, stored: false }
    seen.push(entry)
    checks.push(store.read(series, { start: o.time, end: o.time + 1 }).then((p) => { entry.stored = p.length === 1 }))
  })
  return { seen, settled: () => Promise.all(checks) }
}

t.test('embedded: ingest resolves once stored; the bus carries outputs and ingest, stored first', async (t) => {
  const raw = await openSqliteStore({ dir: t.testdir() })
  const path = openEmbeddedPath({ store: raw })
  t.teardown(() => path.close())
  const w = watch(path, raw, 1)
  await path.startWorker()
  await path.ingest(7, [{ series: 1, time: 10, value: 1 }])
  t.same(await raw.read(1, {}), [{ time: 10, value: 1 }], 'stored when ingest resolves')
  await path.outputs(7, [{ series: 1, time: 20, value: 2 }])
  await w.settled()
  t.same(w.seen, [{ time: 10, value: 1, stored: true }, { time: 20, value: 2, stored: true }])
  await path.drained()
  t.equal(path.metrics().pending, 0)
  t.same(path.consumerLag(), [], 'no observation log: no consumer lag')
  await path.close() // before the test directory is removed (see the scaled case)
})

t.test('embedded: the answer to ingest does not wait for the pipelines; batches reach the bus in the order stored', async (t) => {
  const raw = await openSqliteStore({ dir: t.testdir() })
  const path = openEmbeddedPath({ store: raw })
  const w = watch(path, raw, 1)
  await path.ingest(7, [{ series: 1, time: 1, value: 1 }])
  t.same(w.seen, [], 'answered before the bus carried the batch (the pipelines evaluate it after the answer)')
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(w.seen.length, 1, 'carried in the next turn of the event loop')
  // Many senders at once: several appends and group commits; the bus keeps the order of the store.
  await Promise.all(Array.from({ length: 40 }, (_, i) => path.ingest(7, [{ series: 1, time: 2 + i, value: i }])))
  await waitFor(() => w.seen.length === 41, { what: 'every batch on the bus' })
  await w.settled()
  t.same(w.seen.map((o) => o.time), Array.from({ length: 41 }, (_, i) => 1 + i), 'in enqueue order')
  t.ok(w.seen.every((o) => o.stored), 'each stored before the bus carried it')
  await path.close()
})

t.test('scaled: the store group writes the store, then feeds the bus; a failed write is retried', async (t) => {
  const raw = await openSqliteStore({ dir: t.testdir() })
  let failNext = 1
  const append = async (batch: Parameters<TimeseriesStore['append']>[0]) => {
    if (failNext > 0) { failNext--; throw new Error('store down') }
    await raw.append(batch)
  }
  // Everything else is raw's own, called on raw: a store whose close() ran on another
  // object would not know it is closed (its writer unref'd too early, the test unfinished).
  const store = new Proxy(raw, {
    get: (target, key) => {
      if (key === 'append') return append
      const value = Reflect.get(target, key) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  const errors: string[] = []
  const log = openMemoryLog({ partitions: 2 })
  const path = openScaledPath({ store, log, consume: { retryDelayMs: 10, onError: (err) => errors.push(err.message) } })
  t.teardown(() => path.close())
  const w = watch(path, raw, 1)
  await path.ingest(3, [{ series: 1, time: 10, value: 1 }])
  t.same(await raw.read(1, {}), [], 'ingest resolves once the log has it; nothing is stored before a worker runs')
  await path.startWorker()
  await path.outputs(3, [{ series: 1, time: 20, value: 2 }])
  await waitFor(() => w.seen.length === 2, { what: 'both observations on the bus' })
  await w.settled()
  t.same(w.seen, [{ time: 10, value: 1, stored: true }, { time: 20, value: 2, stored: true }], 'stored before the bus carried them')
  t.same(errors, ['store down'], 'the failed write was reported and retried')
  await path.ingest(3, [{ series: 1, time: 10, value: 5 }])
  await waitFor(() => w.seen.length === 3, { what: 'the replayed observation' })
  t.same(await raw.read(1, {}), [{ time: 10, value: 5 }, { time: 20, value: 2 }], 'the same (series, time) replaces, never doubles')
  // Closed here, before the test directory is removed: the store's writer may still be
  // moving its ingest tail into the main table (engine/store/sqlite-tail.ts).
  await path.close()
})
