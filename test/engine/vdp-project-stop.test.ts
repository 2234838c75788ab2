// Issue 9, item 7: stopping a project in the virtual-datapoint runtime ends its running
// pipelines and also a start still waiting for the store, and leaves other projects running.
import t from 'tap'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { ObservationBus } from '../../engine/observation-bus.ts'
import { ProjectRuntimes } from '../../engine/project-runtimes.ts'
import type { Observation, Point, TimeseriesStore } from '../../engine/store/port.ts'
import { VdpRuntime } from '../../engine/vdp/runtime.ts'

t.test('stopProject stops running and starting virtual datapoints of that project only', async (t) => {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  t.teardown(() => catalog.close())
  const { company, user } = await catalog.createCompanyWithAdmin('A', { email: 'a@a.test', password: 'password-1' })
  const p1 = (await catalog.projects.create(company.id, { name: 'one' }, user.id)).project.id
  const p2 = (await catalog.projects.create(company.id, { name: 'two' }, user.id)).project.id
  const def = { type: 'formula', description: '', pins: { P1: { dataPointID: 'in' } }, parameters: { formula: 'P1 * 2' }, status_code: 100 }
  const v1 = await catalog.virtualDatapoints.create(p1, { dataPointID: 'out', ...def }, 'm')
  const v2 = await catalog.virtualDatapoints.create(p2, { dataPointID: 'out', ...def }, 'm')
  const v3 = await catalog.virtualDatapoints.create(p1, { dataPointID: 'out3', ...def }, 'm')

  // A store whose reads wait until released, so a start can be caught half way.
  let gate: (() => void) | undefined
  let held = false
  const store = { read: async (): Promise<Point[]> => { if (held) await new Promise<void>((r) => { gate = r }); return [] } } as unknown as TimeseriesStore
  const written: Observation[] = []
  const bus = new ObservationBus()
  const runtime = new VdpRuntime({ catalog, store, bus, ingest: async (_p, batch) => { written.push(...batch) }, log: { info: () => {}, error: () => {} } })
  const runtimes = new ProjectRuntimes()
  runtimes.register('virtual datapoints', runtime)

  await runtime.start(v1)
  await runtime.start(v2)
  held = true
  const starting = runtime.start(v3)
  await new Promise((r) => setImmediate(r))
  t.ok(gate, 'the third start waits for the store')

  await runtimes.stopProject(p1)
  held = false
  gate!()
  await starting
  t.notOk(runtime.isRunning(v1.id), 'running one stopped')
  t.notOk(runtime.isRunning(v3.id), 'the start under way gave up')
  t.same(runtime.runningIds(), [v2.id], 'the other project runs on')

  const in1 = (await catalog.datapoints.get(p1, 'in')).id
  const in2 = (await catalog.datapoints.get(p2, 'in')).id
  bus.publish([{ series: in1, time: 1, value: 1 }, { series: in2, time: 1, value: 5 }])
  await new Promise((r) => setImmediate(r))
  t.same(written, [{ series: (await catalog.datapoints.get(p2, 'out')).id, time: 1, value: 10 }], 'only project two computes')
})

t.test('a failing runtime does not keep the others from stopping', async (t) => {
  const stopped: string[] = []
  const runtimes = new ProjectRuntimes()
  runtimes.register('broken', { stopProject: () => { throw new Error('boom') } })
  runtimes.register('fine', { stopProject: async (id) => { stopped.push(`fine ${id}`) } })
  await t.rejects(runtimes.stopProject(7), { message: 'stopping project 7 in broken failed: boom' })
  t.same(stopped, ['fine 7'])
  t.same(runtimes.names(), ['broken', 'fine'])
})
