// The virtual-datapoint runtime runs the tested pipeline (issue 16 item 3): the counter that
// runs in production is the pipeline's CounterCalculator, with its ±Infinity guard, not a
// second accumulation in the runtime. Through the real runtime, store and observation bus.
import t from 'tap'
import { addProject, platform } from '../../helpers/platform.ts'
import { until } from '../../helpers/live-platform.ts'

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
