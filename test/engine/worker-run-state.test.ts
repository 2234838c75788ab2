// Run-state changes reach a worker in another process by notification (issue 17 item 2):
// two catalogs on one PostgreSQL database stand for the API's process and the worker's; the
// worker's control reconciles when the catalog announces run-state (catalog/changes.ts
// RUN_STATE), not on a timer. Also: reconciles are serialized and coalesced, and a share
// change stops what was lost before it reconciles.
import t from 'tap'
import { adminEndpoints } from '../../api/registry.ts'
import { RUN_STATE } from '../../catalog/changes.ts'
import { PostgresCatalog } from '../../catalog/postgres/catalog.ts'
import { VDP_LIFECYCLE } from '../../engine/vdp/lifecycle.ts'
import { WorkerControl } from '../../engine/worker.ts'
import { testDatabase } from '../helpers/postgres.ts'
import { waitFor } from '../helpers/wait.ts'

t.test('a status written by the API process reaches the worker by LISTEN/NOTIFY', async (t) => {
  const url = await testDatabase(t)
  if (!url) return
  const [api, worker] = await Promise.all([PostgresCatalog.open(url, adminEndpoints), PostgresCatalog.open(url, adminEndpoints)])
  t.teardown(async () => { await api.close(); await worker.close() })
  const running: number[][] = []
  const control = new WorkerControl({
    runtimes: [{
      stopUnowned: () => {},
      reconcile: async () => { running.push((await worker.virtualDatapoints.listByStatus(VDP_LIFECYCLE.running)).map((v) => v.id)) },
    }],
    changes: (listener) => worker.changes.subscribe(RUN_STATE, () => listener()),
    onError: (err) => t.fail(err.message),
  })
  t.teardown(() => control.close())
  const { company, user } = await api.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'admin-pass-1' })
  const { project } = await api.projects.create(company.id, { name: 'P' }, user.id)
  const v = await api.virtualDatapoints.create(project.id, { dataPointID: 'twin', type: 'formula', description: '', pins: {}, parameters: {}, status_code: 100 }, 'created')
  const runningCode = VDP_LIFECYCLE.running[0]
  const began = Date.now()
  await api.virtualDatapoints.setStatus(v.id, runningCode, 'run')
  await waitFor(() => running.some((ids) => ids.includes(v.id)), { what: 'the worker to reconcile with the running virtual datapoint', timeoutMs: 2_000 })
  t.ok(Date.now() - began < 1_000, `heard within a second (${Date.now() - began} ms)`)
  const seen = running.length
  await api.virtualDatapoints.setStatus(v.id, 100, 'stop')
  await waitFor(() => running.length > seen && !running[running.length - 1].includes(v.id), { what: 'the reconcile after the stop' })
  t.pass('the stop reached the worker too')
})

t.test('reconciles never overlap, changes during one cause one more; a share change stops first', async (t) => {
  const order: string[] = []
  let active = 0
  let overlapped = false
  let release: () => void = () => {}
  const control = new WorkerControl({
    runtimes: [{
      stopUnowned: () => { order.push('stop') },
      reconcile: async () => {
        if (++active > 1) overlapped = true
        order.push('reconcile')
        await new Promise<void>((resolve) => { release = resolve })
        active--
      },
    }],
    onError: (err) => t.fail(err.message),
  })
  control.reconcile()
  control.reconcile()
  control.shareChanged()
  control.reconcile()
  t.same(order, ['reconcile', 'stop'], 'the share change stopped at once, while a reconcile ran')
  release()
  await waitFor(() => order.length === 3, { what: 'the one more reconcile' })
  release()
  await control.settled()
  t.same(order, ['reconcile', 'stop', 'reconcile'], 'three requests during the first run: one more run')
  t.notOk(overlapped)
  await control.close()
})
