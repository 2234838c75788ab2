// Virtual datapoints over HTTP (spec 2): creation with validation, the state machine and
// its log, running formulas on posted inputs, chaining, cycles, list, delete.
import t from 'tap'
import { addProject, platform, type Platform } from '../helpers/platform.ts'
import { until } from '../helpers/live-platform.ts'
import { waitFor } from '../helpers/wait.ts'

const base = (pid: number) => `/v2/project/${pid}`
const create = (p: Platform, pid: number, id: string, type: string, body: object, desc?: string) =>
  p.call(p.admin, 'POST', `${base(pid)}/virtual_datapoint?dataPointID=${encodeURIComponent(id)}&type=${type}${desc ? `&description=${encodeURIComponent(desc)}` : ''}`, body)
const run = (p: Platform, pid: number, id: string, on: boolean) => p.call(p.admin, 'POST', `${base(pid)}/virtual_datapoint/run?dataPointID=${encodeURIComponent(id)}&run=${on}`)
const get = (p: Platform, pid: number, id: string) => p.call(p.admin, 'GET', `${base(pid)}/virtual_datapoint?dataPointID=${encodeURIComponent(id)}`)
const post = (p: Platform, pid: number, body: object) => p.call(p.admin, 'POST', `${base(pid)}/timeseries`, body)
const values = async (p: Platform, pid: number, id: string) =>
  ((await p.call(p.admin, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=${encodeURIComponent(id)}`)).body.data ?? []) as { time: string; value: number }[]

t.test('lifecycle: Created → Ready to start → Starting → Running → Stopping → Stopped → Deleting', async (t) => {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'VDP')
  const res = await create(p, pid, 'sum', 'formula', { pins: { P1: { dataPointID: 'a' }, P2: { dataPointID: 'b' } }, parameters: { formula: 'P1 + P2' } }, 'a plus b')
  t.equal(res.status, 201)
  t.match(res.body, { success: true, operation: 'create', resource: { dataPointID: 'sum', type: 'formula', description: 'a plus b', status: 'Created', status_code: 100 } })
  t.match(res.body.resource.logs, [{ status_code: 100, status_text: 'Created', type: 'status_change', message: 'Created by admin@acme.test', ts: /^\d{19}$/ }])
  t.ok(await until(async () => (await get(p, pid, 'sum')).body.status === 'Ready to start'), 'ready to start by itself')

  const started = await run(p, pid, 'sum', true)
  t.equal(started.status, 200)
  t.notOk('success' in started.body, 'the run answer has no envelope')
  t.match(started.body, { status: 'Running', status_code: 202 })
  t.same(started.body.logs.map((l: { status_code: number }) => l.status_code), [100, 102, 200, 202])
  t.equal(started.body.logs[2].message, 'Run requested by admin@acme.test')
  t.equal((await run(p, pid, 'sum', true)).status, 409, 'already running')
  t.equal((await p.call(p.admin, 'DELETE', `${base(pid)}/virtual_datapoint?dataPointID=sum`)).status, 409, 'delete needs a stop first')

  await post(p, pid, { a: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })
  await post(p, pid, { b: [{ time: '2024-01-01T00:00:10Z', value: 10 }] })
  await post(p, pid, { a: [{ time: '2024-01-01T00:00:20Z', value: 2 }] })
  t.ok(await until(async () => (await values(p, pid, 'sum')).length === 2), 'two outputs of sum within the bound')
  t.same(await values(p, pid, 'sum'), [{ time: '2024-01-01T00:00:10Z', value: 11 }, { time: '2024-01-01T00:00:20Z', value: 12 }],
    'outputs once every pin has a value, stamped with the triggering observation')

  const stopped = await run(p, pid, 'sum', false)
  t.match(stopped.body, { status: 'Stopped', status_code: 302 })
  t.same(stopped.body.logs.slice(-2).map((l: { status_code: number; message: string }) => [l.status_code, l.message]), [[300, 'Stop requested by admin@acme.test'], [302, '']])
  // A running probe on the same input sees the next observation at the same moment 'sum'
  // would: once the probe has written its output, 'sum' has had its chance to write.
  await create(p, pid, 'probe', 'formula', { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1' } })
  await waitFor(async () => (await get(p, pid, 'probe')).body.status === 'Ready to start', { what: 'the probe to be ready to start' })
  t.equal((await run(p, pid, 'probe', true)).body.status, 'Running')
  await post(p, pid, { a: [{ time: '2024-01-01T00:00:30Z', value: 3 }] })
  await waitFor(async () => (await values(p, pid, 'probe')).some((d) => d.time === '2024-01-01T00:00:30Z'), { what: "the probe's output of the observation" })
  t.equal((await values(p, pid, 'sum')).length, 2, 'a stopped virtual datapoint writes nothing')
  t.equal((await run(p, pid, 'sum', false)).status, 409, 'not running')

  const put = await p.call(p.admin, 'PUT', `${base(pid)}/virtual_datapoint?dataPointID=sum`, { description: 'new text' })
  t.match(put.body, { description: 'new text', status: 'Stopped' })
  const del = await p.call(p.admin, 'DELETE', `${base(pid)}/virtual_datapoint?dataPointID=sum`)
  t.match(del.body, { status: 'Deleting', status_code: 500 })
  t.equal(del.body.logs.at(-1).message, 'Delete requested by admin@acme.test')
  t.equal((await get(p, pid, 'sum')).status, 404, 'the record is removed')
  t.equal((await values(p, pid, 'sum')).length, 2, 'its output series stays')
  t.equal((await create(p, pid, 'sum', 'formula', { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1' } })).status, 201, 'the identifier is free again')
})

t.test('creation is validated: syntax, names, pins, types, duplicates, cycles, disabled projects', async (t) => {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'Checks')
  const err = async (id: string, type: string, body: object) => (await create(p, pid, id, type, body)).body.error
  t.match(await err('x', 'formula', { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1 +;' } }), /Syntax error at line 1, column \d+/)
  t.match(await err('x', 'formula', { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1 + P2' } }), /Unknown name 'P2' at line 1, column 6/)
  t.match(await err('x', 'formula', { pins: { P6: { dataPointID: 'a' } }, parameters: { formula: 'P6' } }), /P6/)
  t.match(await err('x', 'formula', { pins: { P1: { dataPointID: 'a' } }, parameters: {} }), /formula/)
  t.match(await err('x', 'nonsense', { pins: {} }), /type/)
  t.match(await err('x', 'formula', { pins: { P1: { dataPointID: 'a', data_range: { count: 2, time: '1h' } } }, parameters: { formula: 'P1' } }), /data_range/)
  t.equal((await create(p, pid, 'x', 'formula', { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1' } })).status, 201)
  t.same((await create(p, pid, 'x', 'formula', { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1' } })).body,
    { success: false, error: `A virtual datapoint 'x' is already active in project ${pid}`, operation: 'create' })
  t.equal(await err('self', 'formula', { pins: { P1: { dataPointID: 'self' } }, parameters: { formula: 'P1' } }), "Cycle: 'self' would depend on itself through its inputs")
  await create(p, pid, 'c1', 'formula', { pins: { P1: { dataPointID: 'c2' } }, parameters: { formula: 'P1' } })
  t.equal(await err('c2', 'formula', { pins: { P1: { dataPointID: 'c1' } }, parameters: { formula: 'P1' } }), "Cycle: 'c2' would depend on itself through its inputs")
  await p.catalog.projects.setVdpEnabled(pid, false)
  t.equal(await err('y', 'formula', { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1' } }),
    `Virtual datapoints are not enabled for project ${pid}; the operator enables them with 'lintel project vdp --id ${pid} --enable'`)
})

t.test('chaining, counter and gradient through the API', async (t) => {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'Chain')
  await create(p, pid, 'double', 'formula', { pins: { P1: { dataPointID: 'meter' } }, parameters: { formula: 'P1 x 2' } })
  await create(p, pid, 'plus1', 'formula', { pins: { P1: { dataPointID: 'double' } }, parameters: { formula: 'P1 + 1' } })
  await create(p, pid, 'total', 'counter', { pins: { flow: { dataPointID: 'meter' } }, parameters: { formula: 'flow', default_init_value: 100 } })
  await create(p, pid, 'power', 'gradient', { pins: { input: { dataPointID: 'meter' } }, parameters: { factorization: 3600 } })
  await new Promise((r) => setImmediate(r))
  for (const id of ['double', 'plus1', 'total', 'power']) t.equal((await run(p, pid, id, true)).body.status, 'Running', id)
  await post(p, pid, { meter: [{ time: '2024-01-01T00:00:00Z', value: 10 }] })
  await post(p, pid, { meter: [{ time: '2024-01-01T01:00:00Z', value: 12 }] })
  t.ok(await until(async () => (await values(p, pid, 'plus1')).length === 2 && (await values(p, pid, 'power')).length === 1), 'two outputs of plus1 and one of power within the bound')
  t.same((await values(p, pid, 'plus1')).map((d) => d.value), [21, 25], 'a virtual datapoint feeds another')
  t.same((await values(p, pid, 'total')).map((d) => d.value), [110, 122], 'the counter accumulates onto default_init_value')
  t.same(await values(p, pid, 'power'), [{ time: '2024-01-01T01:00:00Z', value: 2 }], '(12 - 10) / 3600 s × 3600')
})

t.test('list: search, filter by status_code, pages', async (t) => {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'List')
  for (let i = 0; i < 25; i++) await create(p, pid, `vdp-${String(i).padStart(2, '0')}`, 'formula', { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1' } })
  await new Promise((r) => setImmediate(r))
  await run(p, pid, 'vdp-03', true)
  const page1 = await p.call(p.admin, 'GET', `${base(pid)}/virtual_datapoints`)
  t.same(page1.body.meta, { current_page: 1, items_per_page: 20, total_items: 25, total_pages: 2 })
  t.equal(page1.body.items.length, 20)
  t.same(page1.body.items[0], { dataPointID: 'vdp-00', status: 'Ready to start' })
  t.equal((await p.call(p.admin, 'GET', `${base(pid)}/virtual_datapoints?page=2`)).body.items.length, 5)
  t.same((await p.call(p.admin, 'GET', `${base(pid)}/virtual_datapoints?filter=status_code=202`)).body.items, [{ dataPointID: 'vdp-03', status: 'Running' }])
  t.equal((await p.call(p.admin, 'GET', `${base(pid)}/virtual_datapoints?search=vdp-1`)).body.meta.total_items, 10)
  t.equal((await p.call(p.admin, 'GET', `${base(pid)}/virtual_datapoints?filter=status=1`)).body.error, "Unsupported filter 'status=1': only status_code=<code> is supported")
})
