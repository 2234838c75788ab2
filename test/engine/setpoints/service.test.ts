// The setpoint service against the real catalog (in memory) and a fake publisher: the
// lifecycle table, answers accepted only from the operation's project and for its datapoint,
// late and duplicate answers ignored, publish failures, resume after a restart, project stop.
import t, { type Test } from 'tap'
import { adminEndpoints } from '../../../api/registry.ts'
import { Catalog } from '../../../catalog/index.ts'
import { SETPOINT_LIFECYCLE, INITIALIZED, REQUESTED, WRITTEN, FAILED, codeOf } from '../../../engine/setpoints/lifecycle.ts'
import { SetpointService, type SetpointWrite } from '../../../engine/setpoints/service.ts'
import { readSetpointAck } from '../../../protocol/setpoint-messages.ts'
import { waitFor } from '../../helpers/wait.ts'
import type { Clock } from '../../../core/clock/clock.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'

const NULLS = new Array(16).fill(null)

async function setup(t: Test, opts: { fail?: boolean; timeoutMs?: number; clock?: Clock } = {}) {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  t.teardown(() => catalog.close())
  const { company } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'password-1' })
  const p1 = (await catalog.projects.create(company.id, { name: 'one' }, null)).project
  const p2 = (await catalog.projects.create(company.id, { name: 'two' }, null)).project
  const sent: SetpointWrite[] = []
  const service = new SetpointService({
    setpoints: catalog.setpoints, timeoutMs: opts.timeoutMs ?? 60_000, clock: opts.clock,
    publish: async (_pid, m) => { if (opts.fail) throw new Error('broker closed'); sent.push(m); return 'CONTROLS/g/h' },
  })
  t.teardown(() => service.stopAll())
  const req = (projectId = p1.id, extra = {}) => service.request({ projectId, dataPointID: 'dp', value: 21, priority: 13, acked: true, dryrun: false, keepOutOfService: false, requestedBy: 'a@acme.test', ...extra })
  /** As ingest/mqtt/setpoint-link.ts hands them on: decoded, or ignored when malformed. */
  const answer = async (projectId: number, m: Record<string, unknown>) => {
    const read = readSetpointAck({ type: 'SPTACK', swop_version: 0.1, datapoint: 'dp', ...m })
    if (read.ok) await service.onAnswer({ projectId, username: 'edge' }, read.ack)
    else service.ignoredAnswer({ projectId, username: 'edge' }, read.error)
  }
  return { catalog, service, sent, req, answer, p1: p1.id, p2: p2.id }
}

t.test('the lifecycle table', async (t) => {
  const L = SETPOINT_LIFECYCLE
  t.equal(L.initial, INITIALIZED)
  t.equal(L.next(INITIALIZED, 'send', 'x'), REQUESTED)
  t.equal(L.next(REQUESTED, 'written', 'x'), WRITTEN)
  t.equal(L.next(REQUESTED, 'timeout', 'x'), FAILED)
  t.equal(L.next(REQUESTED, 'refused', 'x'), FAILED)
  t.equal(L.next(INITIALIZED, 'ended', 'x'), FAILED)
  for (const final of [WRITTEN, FAILED]) {
    for (const trigger of ['send', 'accepted', 'written', 'refused', 'timeout', 'ended'] as const) t.notOk(L.allows(final, trigger), `${L.text(final)} is final (${trigger})`)
  }
  t.throws(() => L.next(WRITTEN, 'timeout', 'r1'), /Setpoint operation 'r1': timeout is not allowed while written/)
})

t.test('answers count only from the operation\'s project, for its datapoint, while requested', async (t) => {
  const s = await setup(t)
  const op = await s.req()
  t.equal(op.status, 'requested')
  t.same(s.sent[0], { datapoint: 'dp', value: 21, priority: 13, reference: op.reference, acked: true, dryrun: false, keep_out_of_service: false })
  await s.answer(s.p2, { reference: op.reference, result: 'written', priorityArray: NULLS })
  await s.answer(s.p1, { reference: op.reference, datapoint: 'other', result: 'written', priorityArray: NULLS })
  await s.answer(s.p1, { reference: 'nope', result: 'written', priorityArray: NULLS })
  await s.answer(s.p1, { reference: op.reference, result: 'written', priorityArray: [1] }) // malformed
  t.equal(s.service.counters.answers_ignored, 4)
  t.equal((await s.catalog.setpoints.get(op.reference)).status, 'requested', 'none of them moved it')
  await s.answer(s.p1, { reference: op.reference, result: 'written', priorityArray: [...NULLS.slice(0, 12), 20, ...NULLS.slice(13)], present_value: 21 })
  const done = await s.catalog.setpoints.get(op.reference)
  t.equal(done.status, 'written')
  t.equal(done.old_value, '20')
  t.equal(done.log.at(-1)!.overwritten_value, '20')
  await s.answer(s.p1, { reference: op.reference, result: 'refused', reason: 'late' })
  t.equal((await s.catalog.setpoints.get(op.reference)).status, 'written', 'a late answer does not change a final state')
  t.equal(s.service.counters.answers_ignored, 5)
})

t.test('a publish failure fails the operation; unacknowledged operations have no deadline', async (t) => {
  const s = await setup(t, { fail: true })
  const op = await s.req()
  t.equal(op.status, 'failed')
  t.match(op.log.at(-1)!.msg, /could not be sent to the edge device: broker closed/)
  const ok = await setup(t)
  const un = await ok.req(ok.p1, { acked: false })
  t.equal(un.status, 'requested')
  t.equal(un.deadline, null)
})

t.test('the deadline counts from the first log entry: a time-out is never logged before the window has passed', async (t) => {
  // On the virtual clock: the creation and its log entry are one instant, the time-out runs
  // when the window has passed and not a microsecond before, and its entry says so.
  const clock = new VirtualClock(Date.now() * 1000)
  const s = await setup(t, { timeoutMs: 50, clock })
  const op = await s.req()
  t.equal(Date.parse(op.log[0].time), op.created_at, 'the first entry is the creation time')
  t.equal(op.deadline, op.created_at + 50)
  clock.advance(50_000 - 1)
  t.equal(clock.pending, 1, 'not yet due')
  t.equal((await s.catalog.setpoints.find(op.reference))!.status, 'requested')
  clock.advance(1)
  await waitFor(async () => (await s.catalog.setpoints.find(op.reference))!.status === 'failed', { what: 'the time-out' })
  const log = (await s.catalog.setpoints.find(op.reference))!.log
  t.equal(Date.parse(log.at(-1)!.time) - Date.parse(log[0].time), 50, 'logged when the window after the first entry has passed')
})

t.test('a restart well after the request: the time-out comes at the original deadline on the shared clock, not a fresh window', async (t) => {
  // One virtual clock for the process before and after the restart (issue 36): the request
  // is made 45 s before the restart, so a re-armed fresh window would end 45 s late.
  const T0 = 1_800_000_000_000_000
  const clock = new VirtualClock(T0)
  const s = await setup(t, { timeoutMs: 60_000, clock })
  const op = await s.req()
  t.equal(op.deadline, T0 / 1000 + 60_000, 'the deadline counts from the request')
  clock.advance(45_000_000)
  s.service.stopAll() // the process stops 45 s after the request
  const restarted = new SetpointService({ setpoints: s.catalog.setpoints, timeoutMs: 60_000, publish: async () => 'x', clock })
  t.teardown(() => restarted.stopAll())
  t.same(await restarted.resume(), { waiting: 1, ended: 0 })
  t.equal(clock.nextAt, T0 + 60_000_000, 'the time-out is armed at the original deadline, 15 s after the restart')
  clock.advance(15_000_000 - 1_000) // 1 ms before the original deadline
  t.equal((await s.catalog.setpoints.get(op.reference)).status, 'requested', 'not failed before its deadline')
  clock.advance(1_000)
  const failed = await waitFor(async () => { const o = await s.catalog.setpoints.get(op.reference); return o.status === 'failed' ? o : undefined }, { what: 'the time-out at the original deadline' })
  t.equal(failed.log.at(-1)!.time, new Date(T0 / 1000 + 60_000).toISOString(), 'failed at the original deadline, not 60 s after the restart')
  t.equal(failed.log.at(-1)!.msg, 'No answer from the edge device within 60 s: the edge device is unreachable')
})

t.test('resume: requested operations keep their deadline, initialized ones end; stopProject ends pending ones', async (t) => {
  const s = await setup(t, { timeoutMs: 300 })
  const waiting = await s.req()
  s.service.stopAll() // as if the process stopped
  await s.catalog.setpoints.create({ ...waiting, reference: 'never-sent', status: 'initialized', deadline: null, log: [] })
  // Restarted with another time-out: the waiting one keeps its deadline and its window.
  const clock = new VirtualClock(Date.now() * 1000)
  const fresh = new SetpointService({ setpoints: s.catalog.setpoints, timeoutMs: 60_000, publish: async () => 'x', clock })
  t.teardown(() => fresh.stopAll())
  t.same(await fresh.resume(), { waiting: 1, ended: 1 })
  t.equal((await s.catalog.setpoints.get('never-sent')).status, 'failed')
  t.equal(clock.pending, 1, 'the resumed deadline is armed')
  t.equal((await s.catalog.setpoints.get(waiting.reference)).status, 'requested')
  clock.advance(300_000) // the 300 ms deadline passes (on the virtual clock)
  const timedOut = await waitFor(async () => { const op = await s.catalog.setpoints.get(waiting.reference); return op.status === 'failed' ? op : undefined }, { what: 'the resumed time-out' })
  t.equal(timedOut.log.at(-1)!.msg, 'No answer from the edge device within 0.3 s: the edge device is unreachable', 'the window it was sent with, not the restarted one')

  const p = await setup(t)
  const a = await p.req(p.p1)
  const b = await p.req(p.p2)
  await p.service.stopProject(p.p1)
  t.equal((await p.catalog.setpoints.get(a.reference)).status, 'failed')
  t.match((await p.catalog.setpoints.get(a.reference)).log.at(-1)!.msg, /is being deleted/)
  t.equal((await p.catalog.setpoints.get(b.reference)).status, 'requested', 'other projects are untouched')
})

t.test('several API processes on one catalog: every answer and the time-out are logged once', async (t) => {
  const s = await setup(t, { timeoutMs: 200 })
  // A second API process: its own service (no shared memory), the same catalog.
  const other = new SetpointService({ setpoints: s.catalog.setpoints, timeoutMs: 200, publish: async () => 'CONTROLS/g/h' })
  t.teardown(() => other.stopAll())
  const both = (m: Record<string, unknown>) => {
    const read = readSetpointAck({ type: 'SPTACK', swop_version: 0.1, datapoint: 'dp', ...m })
    if (!read.ok) throw new Error(read.error)
    return Promise.all([s.service.onAnswer({ projectId: s.p1, username: 'edge' }, read.ack), other.onAnswer({ projectId: s.p1, username: 'edge' }, read.ack)])
  }
  const op = await s.req()
  await both({ reference: op.reference, result: 'accepted' })
  await both({ reference: op.reference, result: 'accepted' }) // heard again later
  await both({ reference: op.reference, result: 'written', priorityArray: NULLS, present_value: 21 })
  const done = await s.catalog.setpoints.get(op.reference)
  t.same(done.log.map((e) => e.status), ['initialized', 'requested', 'requested', 'written'], 'one accepted and one written entry')
  t.equal(s.service.counters.written + other.counters.written, 1)

  // Both processes time out the same operation (the other one armed it at its start).
  const late = await s.req()
  t.same(await other.resume(), { waiting: 1, ended: 0 })
  await waitFor(async () => (await s.catalog.setpoints.get(late.reference)).status === 'failed', { timeoutMs: 5000, what: 'the time-out' })
  await waitFor(() => s.service.busy === 0 && other.busy === 0, { what: 'both time-outs to have run' })
  const failed = await s.catalog.setpoints.get(late.reference)
  t.same(failed.log.map((e) => e.status), ['initialized', 'requested', 'failed'], 'one failure entry')
  t.equal(s.service.counters.failed + other.counters.failed, 1)
})

t.test('a refusal of the edge device fails the operation with its reason; a stored status the table does not know is an error', async (t) => {
  const s = await setup(t)
  const op = await s.req()
  await s.answer(s.p1, { reference: op.reference, result: 'refused', reason: 'value 99 is outside the device\'s range [0,50]' })
  const failed = await s.catalog.setpoints.get(op.reference)
  t.equal(failed.status, 'failed')
  t.equal(failed.log.at(-1)!.msg, 'Refused by the edge device (edge account edge): value 99 is outside the device\'s range [0,50]')
  t.equal(s.service.counters.failed, 1)
  t.throws(() => codeOf('paused'), /unknown setpoint status 'paused'/)
})
