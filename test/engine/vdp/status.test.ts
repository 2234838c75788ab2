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
  const codes = async (id: number) => (await vdps.logs(id)).map((l) => l.status_code)
  return { p, pid, vdps, create, codes }
}

t.test('moveVdp writes the state the table gives and logs it; a refused move writes nothing', async (t) => {
  const { p, vdps, create, codes } = await setup(t)
  const v = await create('x')
  t.equal((await moveVdp(p.catalog, v.id, 'run', 'Run requested by test')).status_code, 200)
  t.equal((await moveVdp(p.catalog, v.id, 'started')).status_code, 202)
  await t.rejects(moveVdp(p.catalog, v.id, 'delete', 'Delete requested by test'), TransitionRefusedError)
  t.equal((await vdps.byId(v.id)).status_code, 202, 'unchanged')
  t.same(await codes(v.id), [100, 200, 202], 'no log entry for the refused move')
  const logs = await vdps.logs(v.id)
  t.same(logs[1], { message: 'Run requested by test', status_code: 200, ts: logs[1].ts, type: 'status_change' })
})

t.test('settleVdp takes Created → Ready to start after the current tick, only from Created', async (t) => {
  const { p, vdps, create, codes } = await setup(t)
  const a = await create('a')
  const b = await create('b')
  settleVdp(p.catalog, a.id)
  settleVdp(p.catalog, b.id)
  await moveVdp(p.catalog, b.id, 'run') // a fast client: run before the automatic move
  t.equal((await vdps.byId(a.id)).status_code, 100, 'not yet: the creating request still answers Created')
  await new Promise((r) => setImmediate(r))
  t.same(await codes(a.id), [100, 102])
  t.same(await codes(b.id), [100, 200], 'Starting is left alone')
  const c = await create('c')
  settleVdp(p.catalog, c.id)
  await vdps.remove(c.id)
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
  const v = (await vdps.find(pid, 'sum'))!
  t.equal(v.status_code, 302)
  t.notOk(p.vdpRuntime.isRunning(v.id), 'the pipeline the run request started is stopped')
})
