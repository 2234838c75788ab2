// The bounded ingest queue between the broker and the store (DESIGN.md "Data flow"): an
// enqueue resolves only once its observations are durable, messages of many clients share
// one commit, a full queue makes publishers wait instead of dropping, and a failed write
// rejects every enqueue of its group.
import t from 'tap'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { IngestQueue } from '../../engine/observation-path/ingest-queue.ts'

t.test('durable when resolved, grouped, bounded', async (t) => {
  const store = await openSqliteStore({ dir: t.testdir() })
  t.teardown(() => store.close())
  const queue = new IngestQueue(store, { maxPending: 1000, maxBatch: 400 })
  const messages = Array.from({ length: 50 }, (_, m) => Array.from({ length: 100 }, (_, i) => ({ series: m % 5, time: m * 100 + i, value: i })))
  let waiting = 0
  const all = messages.map(async (obs) => {
    await queue.enqueue(obs)
    // Resolved: the observations are readable from the store.
    const [first] = await store.read(obs[0].series, { start: obs[0].time, limit: 1, from: 'first' })
    t.equal(first?.time, obs[0].time)
    waiting = Math.max(waiting, queue.metrics().pending)
  })
  await Promise.all(all)
  const m = queue.metrics()
  t.equal(m.enqueued, 5000)
  t.equal(m.stored, 5000)
  t.equal(m.pending, 0)
  t.ok(m.backpressure_waits > 0, 'a full queue made enqueues wait')
  t.ok(waiting <= 1000, `never more than maxPending waiting (${waiting})`)
  t.ok(m.batches < 50, `messages share commits (${m.batches} batches for 50 messages)`)
  for (let s = 0; s < 5; s++) t.equal(await store.count(s), 1000)
})

t.test('a failed store write rejects the enqueues of its group and nothing waits forever', async (t) => {
  const store = await openSqliteStore({ dir: t.testdir() })
  await store.close()
  const queue = new IngestQueue(store)
  const results = await Promise.allSettled([queue.enqueue([{ series: 1, time: 1, value: 1 }]), queue.enqueue([{ series: 1, time: 2, value: 2 }])])
  t.same(results.map((r) => r.status), ['rejected', 'rejected'])
  t.match(queue.metrics(), { failed: 2, stored: 0, pending: 0 })
})

t.test('two appends under way at most; groups settle in the order sent even when the store answers out of order', async (t) => {
  const calls: { batch: number[]; done: (err?: Error) => void }[] = []
  const store = {
    append: (batch: readonly { value: number }[]) => new Promise<void>((resolve, reject) => {
      calls.push({ batch: batch.map((o) => o.value), done: (err) => (err ? reject(err) : resolve()) })
    }),
  }
  const queue = new IngestQueue(store, { maxBatch: 1 })
  const settled: string[] = []
  const enqueue = (v: number) => queue.enqueue([{ series: 1, time: v, value: v }]).then(() => settled.push(`${v} stored`), (err: Error) => settled.push(`${v} ${err.message}`))
  const all = [1, 2, 3, 4].map(enqueue)
  await new Promise((resolve) => setImmediate(resolve))
  t.same(calls.map((c) => c.batch), [[1], [2]], 'two sent, the others wait')
  calls[1].done()
  await new Promise((resolve) => setImmediate(resolve))
  t.same(settled, [], 'the second answered first: not settled before the first')
  t.equal(calls.length, 2, 'nothing more sent while both are under way')
  calls[0].done(new Error('disk full'))
  await new Promise((resolve) => setImmediate(resolve))
  t.same(settled, ['1 disk full', '2 stored'], 'settled in the order sent, each with its own outcome')
  t.same(calls.map((c) => c.batch), [[1], [2], [3], [4]], 'room for two more')
  calls[3].done()
  calls[2].done()
  await Promise.all(all)
  t.same(settled, ['1 disk full', '2 stored', '3 stored', '4 stored'])
  t.match(queue.metrics(), { stored: 3, failed: 1, pending: 0, batches: 3 })
})

t.test('a store that throws instead of rejecting fails its group; later groups still go', async (t) => {
  let n = 0
  const store = { append: (): Promise<void> => { if (n++ === 0) throw new Error('thrown'); return Promise.resolve() } }
  const queue = new IngestQueue(store)
  const results = await Promise.allSettled([queue.enqueue([{ series: 1, time: 1, value: 1 }]), queue.enqueue([{ series: 1, time: 2, value: 2 }])])
  t.same(results.map((r) => r.status), ['rejected', 'fulfilled'])
  t.match(queue.metrics(), { failed: 1, stored: 1, pending: 0 })
})
