// The one writer of virtual datapoint statuses (engine/vdp/status.ts) over the real catalog,
// and the run request racing a stop request through the real route and runtime.
import t, { type Test } from 'tap'
import { TransitionRefusedError } from '../../../engine/lifecycle.ts'
import { moveVdp, settleVdp } from '../../../engine/vdp/status.ts'
import { addProject, platform } from '../../helpers/platform.ts'

async function setup(t: Test) {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'Status')
  const vdps = p.catalog.virtualDatapoints
  const create = (id: string) => vdps.create(pid, { dataPointID: id, type: 'formula', description: '', pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1' }, status_code: 100 }, 'Created by test')
  const codes = (id: number) => vdps.logs(id).map((l) => l.status_code)
  return { p, pid, vdps, create, codes }
}

t.test('moveVdp writes the state the table gives and logs it; a refused move writes nothing', async (t) => {
  const { vdps, create, codes } = await setup(t)
  const v = create('x')
  t.equal(moveVdp(vdps, v.id, 'run', 'Run requested by test').status_code, 200)
  t.equal(moveVdp(vdps, v.id, 'started').status_code, 202)
  t.throws(() => moveVdp(vdps, v.id, 'delete', 'Delete requested by test'), TransitionRefusedError)
  t.equal(vdps.byId(v.id).status_code, 202, 'unchanged')
  t.same(codes(v.id), [100, 200, 202], 'no log entry for the refused move')
  t.same(vdps.logs(v.id)[1], { message: 'Run requested by test', status_code: 200, ts: vdps.logs(v.id)[1].ts, type: 'status_change' })
})

t.test('settleVdp takes Created → Ready to start after the current tick, only from Created', async (t) => {
  const { vdps, create, codes } = await setup(t)
  const a = create('a')
  const b = create('b')
  settleVdp(vdps, a.id)
  settleVdp(vdps, b.id)
  moveVdp(vdps, b.id, 'run') // a fast client: run before the automatic move
  t.equal(vdps.byId(a.id).status_code, 100, 'not yet: the creating request still answers Created')
  await new Promise((r) => setImmediate(r))
  t.same(codes(a.id), [100, 102])
  t.same(codes(b.id), [100, 200], 'Starting is left alone')
  const c = create('c')
  settleVdp(vdps, c.id)
  vdps.remove(c.id)
  await new Promise((r) => setImmediate(r))
  t.pass('a record deleted meanwhile is no error')
})

t.test('a stop request while the run request is starting wins: the answer is 409 and nothing runs', async (t) => {
  const { p, pid, vdps } = await setup(t)
  const base = `/v2/project/${pid}/virtual_datapoint`
  await p.call(p.admin, 'POST', `${base}?dataPointID=sum&type=formula`, { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1' } })
  const start = p.vdpRuntime.start.bind(p.vdpRuntime)
  let stop: { status: number; body: any } | undefined
  p.vdpRuntime.start = async (v) => {
    await start(v)
    stop = await p.call(p.admin, 'POST', `${base}/run?dataPointID=sum&run=false`)
  }
  const run = await p.call(p.admin, 'POST', `${base}/run?dataPointID=sum&run=true`)
  t.match(stop, { status: 200, body: { status: 'Stopped' } })
  t.same(run, { status: 409, body: { success: false, error: "Virtual datapoint 'sum': started is not allowed while Stopped (302); it is allowed from Starting (200)", operation: 'create' } })
  const v = vdps.find(pid, 'sum')!
  t.equal(v.status_code, 302)
  t.notOk(p.vdpRuntime.isRunning(v.id), 'the pipeline the run request started is stopped')
})
