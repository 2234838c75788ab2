// The setpoint runtime in the one module shape (engine/running.ts, issue 30 item 5): started,
// it hears answers before it resumes (so none arriving meanwhile is lost), re-arms the
// deadlines of operations still waiting and ends those never sent; stop() stops hearing
// answers and clears the deadlines (the catalog keeps them); a failed resume stops hearing
// answers and fails the start.
import t, { type Test } from 'tap'
import { adminEndpoints } from '../../../api/registry.ts'
import { Catalog } from '../../../catalog/index.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { startSetpoints } from '../../../engine/setpoints/index.ts'
import { SetpointService } from '../../../engine/setpoints/service.ts'

const T0 = 1_800_000_000_000_000

async function setup(t: Test) {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  t.teardown(() => catalog.close())
  const { company } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'password-1' })
  const projectId = (await catalog.projects.create(company.id, { name: 'one' }, null)).project.id
  const clock = new VirtualClock(T0)
  // A request of an earlier process, 10 s window, still waiting when it stopped.
  const before = new SetpointService({ setpoints: catalog.setpoints, timeoutMs: 10_000, publish: async () => 'CONTROLS/g/h', clock })
  const op = await before.request({ projectId, dataPointID: 'dp', value: 21, priority: 13, acked: true, dryrun: false, keepOutOfService: false, requestedBy: 'a@acme.test' })
  before.stopAll()
  await catalog.setpoints.create({ ...op, reference: 'never-sent', status: 'initialized', deadline: null, log: [] })
  const events: string[] = []
  const answers = async () => { events.push('answers heard'); return { stop: async () => { events.push('answers stopped') } } }
  const status = async (reference: string) => (await catalog.setpoints.get(reference)).status
  return { catalog, clock, op, events, answers, status }
}

t.test('answers first, then the resume: the waiting deadline is armed, the unsent one ended', async (t) => {
  const s = await setup(t)
  const listAwaiting = s.catalog.setpoints.listAwaiting.bind(s.catalog.setpoints)
  const setpoints = Object.assign(Object.create(s.catalog.setpoints), { listAwaiting: (p?: number) => { s.events.push('resumed'); return listAwaiting(p) } })
  const started = await startSetpoints({ setpoints, publish: async () => 'x', clock: s.clock, answers: s.answers })
  t.same(s.events, ['answers heard', 'resumed'])
  t.ok(started.service instanceof SetpointService)
  t.equal(await s.status('never-sent'), 'failed', 'never sent: ended')
  t.equal(s.clock.nextAt, T0 + 10_000_000, 'the waiting one keeps its deadline')
  await s.clock.settle(10_000_000)
  t.equal(await s.status(s.op.reference), 'failed', 'timed out at its deadline')
  await started.stop()
  t.same(s.events, ['answers heard', 'resumed', 'answers stopped'])
})

t.test('stop: answers no longer heard, deadlines cleared and kept in the catalog', async (t) => {
  const s = await setup(t)
  const started = await startSetpoints({ setpoints: s.catalog.setpoints, publish: async () => 'x', clock: s.clock, answers: s.answers })
  t.equal(s.clock.pending, 1)
  await started.stop()
  t.equal(s.clock.pending, 0, 'no deadline armed after stop')
  t.same(s.events, ['answers heard', 'answers stopped'])
  await s.clock.settle(20_000_000)
  t.equal(await s.status(s.op.reference), 'requested', 'nothing recorded after stop')
  t.equal((await s.catalog.setpoints.get(s.op.reference)).deadline, T0 / 1000 + 10_000, 'the deadline stays for the next start')
})

t.test('a failed resume stops hearing answers and fails the start', async (t) => {
  const s = await setup(t)
  const setpoints = Object.assign(Object.create(s.catalog.setpoints), { listAwaiting: async () => { throw new Error('catalog unreachable') } })
  await t.rejects(startSetpoints({ setpoints, publish: async () => 'x', clock: s.clock, answers: s.answers }), /catalog unreachable/)
  t.same(s.events, ['answers heard', 'answers stopped'])
})
