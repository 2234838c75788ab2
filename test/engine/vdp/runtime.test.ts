// The virtual-datapoint runtime runs the tested pipeline (issue 16 item 3): the counter that
// runs in production is the pipeline's CounterCalculator, with its ±Infinity guard, not a
// second accumulation in the runtime. Through the real runtime, store and observation bus.
// On start it catches up the inputs stored after the last output (issue 16 item 8), paced by
// its output writes.
import t from 'tap'
import { addProject, platform } from '../../helpers/platform.ts'
import { until } from '../../helpers/live-platform.ts'
import { waitFor } from '../../helpers/wait.ts'
import { adminEndpoints } from '../../../api/registry.ts'
import { Catalog } from '../../../catalog/index.ts'
import { ObservationBus } from '../../../engine/observation-bus.ts'
import type { TimeseriesStore } from '../../../engine/store/port.ts'
import { openSqliteStore } from '../../../engine/store/sqlite-store.ts'
import { VdpRuntime } from '../../../engine/vdp/runtime.ts'

t.test('a counter whose total would overflow to Infinity skips that result and keeps counting', async (t) => {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'Overflow')
  const base = `/v2/project/${pid}`
  const created = await p.call(p.admin, 'POST', `${base}/virtual_datapoint?dataPointID=total&type=counter`,
    { pins: { flow: { dataPointID: 'flow' } }, parameters: { formula: 'flow', default_init_value: 1e308 } })
  t.equal(created.status, 201)
  t.equal((await p.call(p.admin, 'POST', `${base}/virtual_datapoint/run?dataPointID=total&run=true`)).body.status, 'Running')
  const post = (time: string, value: number) => p.call(p.admin, 'POST', `${base}/timeseries`, { flow: [{ time, value }] })
  await post('2024-01-01T00:00:00Z', 1e308) // 1e308 + 1e308 overflows: refused, the total stays 1e308
  await post('2024-01-01T00:01:00Z', -1e308) // 1e308 - 1e308 = 0
  await post('2024-01-01T00:02:00Z', 5)
  const values = async () => ((await p.call(p.admin, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=total`)).body.data ?? []) as { time: string; value: number }[]
  t.ok(await until(async () => (await values()).some((v) => v.time === '2024-01-01T00:02:00Z')), 'the last input computed')
  t.same(await values(), [{ time: '2024-01-01T00:01:00Z', value: 0 }, { time: '2024-01-01T00:02:00Z', value: 5 }],
    'the overflowing result emitted nothing and left the total finite')
  t.match((await p.call(p.admin, 'GET', `${base}/virtual_datapoint?dataPointID=total`)).body, { status: 'Running', status_code: 202 }, 'still running')
})

t.test('on start the runtime catches up page by page, each page once its outputs are written, and logs the horizon', async (t) => {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  t.teardown(() => catalog.close())
  const { company, user } = await catalog.createCompanyWithAdmin('A', { email: 'a@a.test', password: 'password-1' })
  const pid = (await catalog.projects.create(company.id, { name: 'one' }, user.id)).project.id
  const v = await catalog.virtualDatapoints.create(pid, { dataPointID: 'out', type: 'formula', description: '', pins: { P1: { dataPointID: 'in' } }, parameters: { formula: 'P1 * 2' }, status_code: 100 }, 'm')
  const ids = await catalog.datapoints.ensure(pid, ['out', 'in'])
  const store = await openSqliteStore({ dir: t.testdir() })
  t.teardown(() => store.close())
  await store.append([...Array.from({ length: 10 }, (_, i) => ({ series: ids.get('in')!, time: i + 1, value: i + 1 })), { series: ids.get('out')!, time: 2, value: 4 }])

  const events: string[] = []
  const read: TimeseriesStore['read'] = (s, q) => {
    if (s === ids.get('in') && q.from === 'first') events.push(`read from ${q.start}`)
    return store.read(s, q)
  }
  const warned: object[] = []
  const runtime = new VdpRuntime({
    catalog, store: { read } as unknown as TimeseriesStore, bus: new ObservationBus(),
    ingest: async (_p, batch) => { await new Promise((r) => setImmediate(r)); for (const o of batch) events.push(`wrote ${o.time}`) }, // a page's outputs come in one batch
    log: { info: () => {}, warn: (o) => { warned.push(o) }, error: () => {} },
    catchUp: { chunk: 2, maxCatchUp: 6 },
  })
  t.teardown(() => runtime.stopAll())
  await runtime.start(v)
  await waitFor(() => events.includes('wrote 10'), { what: 'the output of the last input' })
  t.match(warned, [{ vdp: 'out', project_id: pid, lastOutput: 2, catchUpAfter: 4 }], 'eight inputs after the last output, six replayed: logged')
  t.same(events, ['read from 5', 'read from 7', 'wrote 5', 'wrote 6', 'read from 9', 'wrote 7', 'wrote 8', 'read from 11', 'wrote 9', 'wrote 10'],
    'a page is read (the merge reads one ahead) only once the outputs of the page before are written')
})
