// The setpoint service when another API process gets there first (scaled mode, several
// processes on one catalog; engine/setpoints/service.ts): a request another process ended
// before it was sent is not published, an answer another process recorded still clears this
// process's deadline, a time-out already recorded elsewhere is no error, a time-out the catalog
// fails to record is logged, and `busy` counts the updates under way. Against the real catalog
// (in memory), its port wrapped where the other process acts, and the virtual clock. Written
// for the mutation group `setpoint-safeguards`.
import t, { type Test } from 'tap'
import { adminEndpoints } from '../../../api/registry.ts'
import { Catalog } from '../../../catalog/index.ts'
import type { SetpointsPort } from '../../../catalog/port.ts'
import { SETPOINT_LIFECYCLE, INITIALIZED, REQUESTED } from '../../../engine/setpoints/lifecycle.ts'
import { SetpointService, type SetpointServiceDeps } from '../../../engine/setpoints/service.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { waitFor } from '../../helpers/wait.ts'

const NULLS = new Array(16).fill(null)
const T0 = 1_800_000_000_000_000
type Port = SetpointServiceDeps['setpoints']

async function setup(t: Test, wrap: (real: SetpointsPort) => Partial<Port> = () => ({})) {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  t.teardown(() => catalog.close())
  const { company } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'password-1' })
  const projectId = (await catalog.projects.create(company.id, { name: 'one' }, null)).project.id
  const clock = new VirtualClock(T0)
  const warnings: string[] = []
  const published: string[] = []
  const real = catalog.setpoints
  const setpoints: Port = {
    create: (op) => real.create(op), advance: (...a) => real.advance(...a), find: (r) => real.find(r), listAwaiting: (p) => real.listAwaiting(p), ...wrap(real),
  }
  const service = new SetpointService({
    setpoints, timeoutMs: 10_000, clock, log: { warn: (_o, msg) => { warnings.push(msg) } },
    publish: async (_p, w) => { published.push(w.reference); return 'CONTROLS/g/h' },
  })
  t.teardown(() => service.stopAll())
  const req = () => service.request({ projectId, dataPointID: 'dp', value: 21, priority: 13, acked: true, dryrun: false, keepOutOfService: false, requestedBy: 'a@acme.test' })
  const answer = (reference: string, result: 'accepted' | 'written') => service.onAnswer({ projectId, username: 'edge' }, { reference, datapoint: 'dp', result, priorityArray: NULLS })
  return { catalog, clock, service, warnings, published, req, answer }
}

t.test('the running states are the ones resumed after a restart', async (t) => {
  t.same(SETPOINT_LIFECYCLE.running, [INITIALIZED, REQUESTED])
})

t.test('a request another process ended before it was sent: not published, no deadline', async (t) => {
  // The other process's resume() at its start ends `initialized` operations: it acts between
  // this process's create and its send.
  const s = await setup(t, (real) => ({
    advance: async (reference, status, entry, change, current) => {
      if (status === 'requested') await real.advance(reference, 'failed', { msg: 'ended by the other process', status: 'failed', time: 'x' }, {}, current)
      return real.advance(reference, status, entry, change, current)
    },
  }))
  const op = await s.req()
  t.equal(op.status, 'failed', 'the operation as the catalog has it')
  t.equal(op.log.at(-1)!.msg, 'ended by the other process')
  t.same(s.published, [], 'never published')
  t.equal(s.clock.pending, 0, 'no deadline armed')
})

t.test('an answer another process recorded first: this process clears its deadline too', async (t) => {
  let other = false
  const s = await setup(t, (real) => ({
    // The other process records the same answer between this one's read and its write.
    advance: async (reference, status, entry, change, current) => {
      if (!other || status !== 'written') return real.advance(reference, status, entry, change, current)
      await real.advance(reference, status, { ...entry, msg: 'recorded by the other process' }, change, current)
      return real.advance(reference, status, entry, change, current)
    },
  }))
  const op = await s.req()
  t.equal(s.clock.pending, 1)
  other = true
  await s.answer(op.reference, 'written')
  const done = await s.catalog.setpoints.get(op.reference)
  t.same(done.log.map((e) => e.msg).slice(-1), ['recorded by the other process'], 'one entry: the other process\'s')
  t.equal(s.clock.pending, 0, 'the deadline is cleared here too')
  t.equal(s.service.busy, 0)
  t.equal(s.service.counters.written, 0, 'counted by the process that wrote it')
  t.same(s.warnings, [])
})

t.test('a time-out already recorded by another process is no error; one the catalog fails to record is logged', async (t) => {
  const s = await setup(t)
  const op = await s.req()
  // Another process times it out first (on the catalog): this one's timer finds it final.
  await s.catalog.setpoints.advance(op.reference, 'failed', { msg: 'timed out elsewhere', status: 'failed', time: 'x' }, {})
  await s.clock.settle(10_000_000)
  await waitFor(() => s.service.busy === 0, { what: 'the time-out to have run' })
  t.same(s.warnings, [], 'nothing to warn about')
  t.same((await s.catalog.setpoints.get(op.reference)).log.map((e) => e.msg).slice(-1), ['timed out elsewhere'])
  t.equal(s.service.counters.failed, 0)

  let broken = false
  const b = await setup(t, (real) => ({ advance: async (...a) => { if (broken) throw new Error('catalog unreachable'); return real.advance(...a) } }))
  const op2 = await b.req()
  broken = true
  await b.clock.settle(10_000_000)
  await waitFor(() => b.warnings.length > 0, { what: 'the warning' })
  t.same(b.warnings, ['setpoints: time-out not recorded'])
  t.equal((await b.catalog.setpoints.get(op2.reference)).status, 'requested')
})

t.test('busy: the deadlines armed plus the updates under way', async (t) => {
  const s = await setup(t)
  const op = await s.req()
  await s.req()
  t.equal(s.service.busy, 2, 'two deadlines')
  const first = s.answer(op.reference, 'accepted')
  t.equal(s.service.busy, 3, 'and one update under way')
  const second = s.answer(op.reference, 'written')
  t.equal(s.service.busy, 3, 'updates of one operation share one chain')
  await first
  await second
  await waitFor(() => s.service.busy === 1, { what: 'the chain to be forgotten' })
  const done = await s.catalog.setpoints.get(op.reference)
  t.same(done.log.map((e) => e.status), ['initialized', 'requested', 'requested', 'written'], 'in the order they came')
})
