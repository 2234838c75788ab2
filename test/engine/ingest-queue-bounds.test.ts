// The ingest queue's bounds exactly (issue 36 item 5), against a store the test answers by
// hand: a group fills up to maxBatch and not beyond, a message larger than maxBatch goes alone,
// a message larger than maxPending still goes when nothing else waits (never a publisher
// waiting forever), the queue waits for room only beyond maxPending (exactly full is room),
// and the counters say what was stored, failed and waited.
import t from 'tap'
import { IngestQueue } from '../../engine/observation-path/ingest-queue.ts'
import { waitFor } from '../helpers/wait.ts'

function handStore() {
  const calls: { batch: number[]; done: (err?: Error) => void }[] = []
  const store = {
    append: (batch: readonly { value: number }[]) => new Promise<void>((resolve, reject) => {
      calls.push({ batch: batch.map((o) => o.value), done: (err) => (err ? reject(err) : resolve()) })
    }),
  }
  return { store, calls }
}
const msg = (...values: number[]) => values.map((v) => ({ series: 1, time: v, value: v }))
const turn = () => new Promise((resolve) => setImmediate(resolve))

t.test('a group fills up to maxBatch exactly; a larger message goes alone', async (t) => {
  const { store, calls } = handStore()
  const q = new IngestQueue(store, { maxBatch: 4 })
  const all = [q.enqueue(msg(1)), q.enqueue(msg(2)), q.enqueue(msg(3, 4)), q.enqueue(msg(5, 6)), q.enqueue(msg(7, 8, 9, 10, 11)), q.enqueue(msg(12))]
  t.same(calls.map((c) => c.batch), [[1], [2]], 'two appends under way')
  t.match(q.metrics(), { pending: 12, enqueued: 12, stored: 0, batches: 0 })
  calls[0].done()
  await waitFor(() => calls.length === 3, { what: 'the next group' })
  t.same(calls[2].batch, [3, 4, 5, 6], 'two messages fill the group to maxBatch exactly')
  calls[1].done()
  await waitFor(() => calls.length === 4, { what: 'the next group' })
  t.same(calls[3].batch, [7, 8, 9, 10, 11], 'a message larger than maxBatch goes alone, whole')
  calls[2].done()
  await waitFor(() => calls.length === 5, { what: 'the last group' })
  t.same(calls[4].batch, [12])
  calls[3].done()
  calls[4].done()
  await Promise.all(all)
  t.match(q.metrics(), { pending: 0, enqueued: 12, stored: 12, batches: 5, failed: 0, backpressure_waits: 0 })
})

t.test('room up to maxPending exactly; beyond it the publisher waits; a message larger than maxPending goes when the queue is empty', async (t) => {
  const { store, calls } = handStore()
  const q = new IngestQueue(store, { maxPending: 4, maxBatch: 100 })
  let resolved = 0
  const p1 = q.enqueue(msg(1, 2)).then(() => resolved++)
  const p2 = q.enqueue(msg(3, 4)).then(() => resolved++)
  t.equal(q.metrics().backpressure_waits, 0, 'exactly full: no wait')
  t.equal(q.metrics().pending, 4)
  const p3 = q.enqueue(msg(5)).then(() => resolved++)
  t.equal(q.metrics().backpressure_waits, 1, 'one over: the publisher waits')
  t.equal(q.metrics().pending, 4, 'the waiting message is not counted yet')
  t.same(calls.map((c) => c.batch), [[1, 2], [3, 4]])
  calls[0].done()
  await waitFor(() => calls.length === 3, { what: 'the waiting message sent once there is room' })
  t.same(calls[2].batch, [5])
  calls[1].done()
  calls[2].done()
  await Promise.all([p1, p2, p3])
  t.equal(resolved, 3)
  // Larger than the bound, nothing waiting: it goes, it does not wait for ever.
  const big = q.enqueue(msg(6, 7, 8, 9, 10, 11))
  await waitFor(() => calls.length === 4, { what: 'the message larger than maxPending sent' })
  t.equal(q.metrics().backpressure_waits, 1, 'no wait when the queue is empty')
  calls[3].done()
  await big
  t.match(q.metrics(), { pending: 0, stored: 11, batches: 4 })
})

t.test('a failed group releases its room: the waiting publisher goes, counters exact', async (t) => {
  const { store, calls } = handStore()
  const q = new IngestQueue(store, { maxPending: 2, maxBatch: 100 })
  const first = q.enqueue(msg(1, 2))
  const second = q.enqueue(msg(3))
  await turn()
  t.equal(calls.length, 1, 'the second waits for room')
  calls[0].done(new Error('disk full'))
  await t.rejects(first, /disk full/)
  await waitFor(() => calls.length === 2, { what: 'the waiting message sent after the failure' })
  calls[1].done()
  await second
  t.match(q.metrics(), { pending: 0, enqueued: 3, stored: 1, failed: 2, batches: 1, backpressure_waits: 1 })
  t.equal(await q.enqueue([]), undefined, 'an empty message resolves at once')
  t.equal(calls.length, 2, 'and is not sent')
  t.equal(q.metrics().enqueued, 3)
})
