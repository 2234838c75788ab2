// The reader pool's failure path (issue 36 item 1, engine/store/sqlite-read-pool.ts): a reader
// worker that dies fails only the reads it held, with 503 and a text that says what happened
// and to retry; the pool replaces the worker and the next read is answered. Through the API
// (the time-series read) on a real SQLite store with two readers.
import t from 'tap'
import type { Worker } from 'node:worker_threads'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { addProject, platform } from '../helpers/platform.ts'
import { waitFor } from '../helpers/wait.ts'

/** The pool's workers: private to the store, reached here to kill one as a crash would. */
const readers = (store: object): Worker[] =>
  (store as { reads: { slots: { worker: Worker }[] } }).reads.slots.map((s) => s.worker)

t.test('a reader that dies: its read answers 503 naming the cause, the pool replaces it and answers again', async (t) => {
  // Not in t.testdir(): platform() makes that directory again, which would remove the store's file.
  const dir = mkdtempSync(join(tmpdir(), 'lintel-read-pool-'))
  const store = await openSqliteStore({ dir, readers: 2 })
  t.teardown(async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) })
  const p = await platform(t, { store })
  const { id: pid } = await addProject(p, p.admin, 'Reads')
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { t: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })).status, 200)
  const url = `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=t`
  const ok = { data: [{ time: '2024-01-01T00:00:00Z', value: 1 }] }
  t.match((await p.call(p.admin, 'GET', url)).body, ok)

  const [first] = readers(store)
  const died = new Promise((resolve) => first.once('exit', resolve))
  void first.terminate()
  // Sent at once, the read goes to the idle first reader (the least busy, first in order),
  // which stops before it can answer.
  const res = await p.app.inject({ method: 'GET', url, headers: { authorization: 'Basic ' + Buffer.from(`${p.admin.email}:${p.admin.password}`).toString('base64') } })
  await died
  t.equal(res.statusCode, 503, 'the read held by the dead reader answers 503')
  t.same(JSON.parse(res.body), { success: false, error: 'The time-series reader stopped (exit code 1); retry the read', operation: '' })
  t.equal(res.headers['retry-after'], '1')

  await waitFor(() => readers(store)[0] !== first, { what: 'the pool to replace the dead reader' })
  for (let i = 0; i < 4; i++) t.match((await p.call(p.admin, 'GET', url)).body, ok, `read ${i + 1} after the replacement is answered`)
  await Promise.all([1, 2, 3, 4].map(async () => t.match((await p.call(p.admin, 'GET', url)).body, ok)))
})
