// The setpoint service as its users read it (docs/setpoints.md, spec 2 "Setpoint write
// operation"): the log entry of each step in its words and at its time, the old value and
// whether the write wins against a more urgent priority (rule 5), unacknowledged writes with
// no deadline, the reasons an operation ends, the time-out's window, the counters, and every
// ignored answer logged with its reason. Against the real catalog (in memory), a fake
// publisher and the virtual clock. Written for the mutation group `setpoint-safeguards`.
import t, { type Test } from 'tap'
import { adminEndpoints } from '../../../api/registry.ts'
import { Catalog } from '../../../catalog/index.ts'
import { SetpointService } from '../../../engine/setpoints/service.ts'
import { readSetpointAck } from '../../../protocol/setpoint-messages.ts'
import { waitFor } from '../../helpers/wait.ts'
import type { Clock } from '../../../core/clock/clock.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'

const NULLS = new Array(16).fill(null)

async function setup(t: Test, opts: { fail?: boolean; timeoutMs?: number; clock?: Clock; log?: { warn(obj: object, msg: string): void } } = {}) {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  t.teardown(() => catalog.close())
  const { company } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'password-1' })
  const p1 = (await catalog.projects.create(company.id, { name: 'one' }, null)).project
  const p2 = (await catalog.projects.create(company.id, { name: 'two' }, null)).project
  const service = new SetpointService({
    setpoints: catalog.setpoints, timeoutMs: opts.timeoutMs ?? 60_000, clock: opts.clock, log: opts.log,
    publish: async () => { if (opts.fail) throw new Error('broker closed'); return 'CONTROLS/g/h' },
  })
  t.teardown(() => service.stopAll())
  const req = (projectId = p1.id, extra = {}) => service.request({ projectId, dataPointID: 'dp', value: 21, priority: 13, acked: true, dryrun: false, keepOutOfService: false, requestedBy: 'a@acme.test', ...extra })
  const answer = async (projectId: number, m: Record<string, unknown>) => {
    const read = readSetpointAck({ type: 'SPTACK', swop_version: 0.1, datapoint: 'dp', ...m })
    if (!read.ok) throw new Error(read.error)
    await service.onAnswer({ projectId, username: 'edge' }, read.ack)
  }
  return { catalog, service, req, answer, p1: p1.id, p2: p2.id }
}

t.test('the log users read: each step in its words, the written value and who wins', async (t) => {
  const clock = new VirtualClock(1_800_000_000_000_000)
  const warnings: string[] = []
  const s = await setup(t, { clock, log: { warn: (_o, msg) => { warnings.push(msg) } } })
  const op = await s.req(s.p1, { value: null, priority: 5, dryrun: true })
  t.same(op.log.map((e) => ({ ...e })), [
    { msg: 'Setpoint null at priority 5 requested by a@acme.test', status: 'initialized', time: '2027-01-15T08:00:00.000Z', acked: true, dryrun: true },
    { msg: 'Request sent to the edge device', status: 'requested', time: '2027-01-15T08:00:00.000Z' },
  ])
  t.equal(op.deadline, op.created_at + 60_000)
  t.equal(s.service.counters.requested, 1)
  clock.advance(1_000_000)
  await s.answer(s.p1, { reference: op.reference, result: 'accepted' })
  const accepted = await s.catalog.setpoints.get(op.reference)
  t.same({ ...accepted.log.at(-1)! }, { msg: 'Accepted by the edge device (edge account edge)', status: 'requested', time: '2027-01-15T08:00:01.000Z' })
  t.equal(accepted.status, 'requested', 'accepted is not final: the deadline still runs')
  t.equal(s.service.busy, 1, 'its deadline still armed')
  await s.answer(s.p1, { reference: op.reference, result: 'written', priorityArray: NULLS, present_value: 4 })
  const dry = await s.catalog.setpoints.get(op.reference)
  t.equal(dry.log.at(-1)!.msg, 'Dry run: the edge device checked the write and wrote nothing (edge account edge)')
  t.equal(dry.old_value, 'null', 'nothing was at priority 5')
  t.same(dry.log.at(-1)!.priorityArray, NULLS)
  t.equal(dry.log.at(-1)!.present_value, 4)
  t.equal(dry.log.at(-1)!.effective, true)
  t.equal(s.service.busy, 0, 'a final state clears its deadline')
  t.equal(clock.pending, 0)
  t.same(s.service.counters, { requested: 1, written: 1, failed: 0, answers_ignored: 0 })

  // Priority 3 holds 19: a write at 13 is stored but does not win (spec 2 rule 5).
  const beaten = await s.req()
  const pa = [null, null, 19, ...NULLS.slice(3)]
  pa[12] = 7
  pa[13] = 8 // less urgent than 13: never the winner
  await s.answer(s.p1, { reference: beaten.reference, result: 'written', priorityArray: pa })
  const b = await s.catalog.setpoints.get(beaten.reference)
  t.equal(b.log.at(-1)!.msg, 'Written at priority 13 (edge account edge), without effect: priority 3 holds the non-null value 19, which wins (spec 2 rule 5)')
  t.equal(b.old_value, '7')
  t.equal(b.log.at(-1)!.effective, false)
  t.equal(b.log.at(-1)!.present_value, null, 'no present value reported: null')
  // Only less urgent priorities hold values: it wins.
  const wins = await s.req()
  const low = [...NULLS]
  low[13] = 8
  await s.answer(s.p1, { reference: wins.reference, result: 'written', priorityArray: low, present_value: 21 })
  const w = await s.catalog.setpoints.get(wins.reference)
  t.equal(w.log.at(-1)!.msg, 'Written at priority 13 (edge account edge)')
  t.equal(w.log.at(-1)!.effective, true)
  // Its own priority held a value (overwritten): nothing more urgent, so it wins.
  const own = await s.req()
  await s.answer(s.p1, { reference: own.reference, result: 'written', priorityArray: [...NULLS.slice(0, 12), 7, ...NULLS.slice(13)] })
  t.equal((await s.catalog.setpoints.get(own.reference)).log.at(-1)!.msg, 'Written at priority 13 (edge account edge)', 'the value it overwrites does not beat it')
  // Priority 1, the most urgent, holds a value: it wins.
  const first = await s.req()
  await s.answer(s.p1, { reference: first.reference, result: 'written', priorityArray: [0, ...NULLS.slice(1)] })
  t.equal((await s.catalog.setpoints.get(first.reference)).log.at(-1)!.msg, 'Written at priority 13 (edge account edge), without effect: priority 1 holds the non-null value 0, which wins (spec 2 rule 5)')
  // The edge's own word on the effect is taken over the array.
  const told = await s.req()
  await s.answer(s.p1, { reference: told.reference, result: 'written', priorityArray: pa, effective: true })
  t.equal((await s.catalog.setpoints.get(told.reference)).log.at(-1)!.msg, 'Written at priority 13 (edge account edge)')
  t.same(s.service.counters, { requested: 6, written: 6, failed: 0, answers_ignored: 0 })

  // Every ignored answer is counted and logged with its reason.
  const open = await s.req()
  await s.answer(s.p2, { reference: open.reference, result: 'accepted' })
  await s.answer(s.p1, { reference: open.reference, datapoint: 'other', result: 'accepted' })
  await s.answer(s.p1, { reference: told.reference, result: 'accepted' })
  t.same(warnings, [
    `setpoints: answer ignored: no setpoint operation '${open.reference}' in project ${s.p2}`,
    `setpoints: answer ignored: operation '${open.reference}' writes 'dp', not 'other'`,
    `setpoints: answer ignored: operation '${told.reference}' is already written`,
  ])
  t.equal(s.service.counters.answers_ignored, 3)
  t.equal((await s.catalog.setpoints.get(open.reference)).log.length, 2, 'none of them logged on the operation')
})

t.test('unacknowledged and ended operations: no deadline, and the reasons they end', async (t) => {
  const clock = new VirtualClock(1_800_000_000_000_000)
  const s = await setup(t, { clock })
  const un = await s.req(s.p1, { acked: false })
  t.equal(un.status, 'requested')
  t.equal(clock.pending, 0, 'no deadline armed')
  t.equal(s.service.busy, 0)
  clock.advance(3_600_000_000)
  t.equal((await s.catalog.setpoints.get(un.reference)).status, 'requested', 'still requested an hour later: the edge answers nothing')
  const acked = await s.req()
  await s.service.stopProject(s.p1)
  const ended = await s.catalog.setpoints.get(acked.reference)
  t.equal(ended.status, 'failed')
  t.equal(ended.log.at(-1)!.msg, `Project ${s.p1} is being deleted; the operation ends without an answer`)
  t.equal((await s.catalog.setpoints.get(un.reference)).status, 'requested', 'an unacknowledged one awaits nothing: left as it is')
  t.same(s.service.counters, { requested: 2, written: 0, failed: 1, answers_ignored: 0 })
  t.equal(clock.pending, 0, 'the ended one\'s deadline is cleared')

  const broken = await setup(t, { fail: true, clock })
  const op = await broken.req()
  t.equal(op.log.at(-1)!.msg, 'The request could not be sent to the edge device: broker closed')
  t.equal(clock.pending, 0, 'a failed publish leaves no deadline armed')
  t.equal(broken.service.counters.failed, 1)

  await s.catalog.setpoints.create({ ...un, reference: 'unsent', status: 'initialized', deadline: null, log: [] })
  const again = new SetpointService({ setpoints: s.catalog.setpoints, publish: async () => 'x', clock })
  t.equal(again.timeoutMs, 10_000, 'the default time-out')
  t.same(await again.resume(), { waiting: 0, ended: 1 })
  const unsent = await s.catalog.setpoints.get('unsent')
  t.equal(unsent.log.at(-1)!.msg, 'The platform stopped before the request was sent to the edge device; nothing was sent')
  t.same(again.counters, { requested: 0, written: 0, failed: 1, answers_ignored: 0 })
})

t.test('a time-out: the operation fails once, counted, and its deadline is gone', async (t) => {
  const clock = new VirtualClock(1_800_000_000_000_000)
  const s = await setup(t, { clock, timeoutMs: 2_500 })
  const op = await s.req()
  const other = await s.req()
  t.equal(s.service.busy, 2)
  await s.answer(s.p1, { reference: other.reference, result: 'refused', reason: 'no' })
  t.equal(clock.pending, 1, 'the refused one no longer waits')
  await clock.settle(2_500_000)
  const failed = await s.catalog.setpoints.get(op.reference)
  t.equal(failed.status, 'failed')
  t.equal(failed.log.at(-1)!.msg, 'No answer from the edge device within 2.5 s: the edge device is unreachable')
  t.equal(failed.log.at(-1)!.time, '2027-01-15T08:00:02.500Z')
  await waitFor(() => s.service.busy === 0, { what: 'the time-out to finish' })
  t.same(s.service.counters, { requested: 2, written: 0, failed: 2, answers_ignored: 0 })
})
