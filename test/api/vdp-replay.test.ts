// POST /v2/project/{project_id}/virtual_datapoint/replay (endpoint 76, issue 14 item 2):
// recompute over a range, the waiting and polling answer, and the trust boundary (no grant,
// narrower TagAuth on the output and on the inputs, another company).
import t from 'tap'
import { addProject, addUser, platform, type Platform } from '../helpers/platform.ts'
import { waitFor } from '../helpers/wait.ts'

const base = (pid: number) => `/v2/project/${pid}`

async function setup(t: Parameters<typeof platform>[0]) {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'Replay')
  await p.call(p.admin, 'POST', `${base(pid)}/virtual_datapoint?dataPointID=double&type=formula`, { pins: { P1: { dataPointID: 'in' } }, parameters: { formula: '2 * P1' } })
  await p.call(p.admin, 'POST', `${base(pid)}/timeseries`, { in: [1, 2, 3].map((v) => ({ time: `2024-01-01T00:0${v}:00Z`, value: v })) })
  return { p, pid }
}
const replay = (p: Platform, pid: number, who: Parameters<Platform['call']>[0], body: object) => p.call(who, 'POST', `${base(pid)}/virtual_datapoint/replay`, body)
const values = async (p: Platform, pid: number, id: string) =>
  ((await p.call(p.admin, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=${id}`)).body.data ?? []) as { time: string; value: number }[]
const RANGE = { dataPointID: 'double', start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z' }

t.test('replays a stopped virtual datapoint over stored inputs: 200 with the counts, outputs written', async (t) => {
  const { p, pid } = await setup(t)
  const res = await replay(p, pid, p.admin, RANGE)
  t.equal(res.status, 200)
  t.same(res.body, { ...RANGE, status: 'done', inputs: 3, outputs: 3 })
  t.same(await values(p, pid, 'double'), [1, 2, 3].map((v) => ({ time: `2024-01-01T00:0${v}:00Z`, value: 2 * v })))
  const part = await replay(p, pid, p.admin, { ...RANGE, start: '2024-01-01T00:02:00Z', end: '2024-01-01T00:03:00Z' })
  t.same(part.body, { dataPointID: 'double', start: '2024-01-01T00:02:00Z', end: '2024-01-01T00:03:00Z', status: 'done', inputs: 1, outputs: 1 }, 'end is exclusive')
})

t.test('wait 0: 202 with the progress, the same request polls until 200', async (t) => {
  const { p, pid } = await setup(t)
  const first = await replay(p, pid, p.admin, { ...RANGE, wait: 0 })
  t.equal(first.status, 202)
  t.match(first.body, { ...RANGE, status: 'running', inputs: Number })
  let last: { status: number; body: any } | undefined
  await waitFor(async () => (last = await replay(p, pid, p.admin, { ...RANGE, wait: 1 })).status === 200, { what: 'the result' })
  t.same(last!.body, { ...RANGE, status: 'done', inputs: 3, outputs: 3 })
})

t.test('refusals: bad range, unknown, time trigger', async (t) => {
  const { p, pid } = await setup(t)
  const bad = await replay(p, pid, p.admin, { ...RANGE, start: RANGE.end, end: RANGE.start })
  t.equal(bad.status, 400)
  t.equal(bad.body.error, 'start must be before end')
  t.equal((await replay(p, pid, p.admin, { ...RANGE, start: 'yesterday' })).body.error, "Invalid start 'yesterday': expected an RFC 3339 timestamp")
  t.equal((await replay(p, pid, p.admin, { ...RANGE, dataPointID: 'nope' })).status, 404)
  await p.call(p.admin, 'POST', `${base(pid)}/virtual_datapoint?dataPointID=minutely&type=formula`, { pins: { P1: { dataPointID: 'in', trigger: 'every_minute' } }, parameters: { formula: 'P1' } })
  const timed = await replay(p, pid, p.admin, { ...RANGE, dataPointID: 'minutely' })
  t.equal(timed.status, 400)
  t.equal(timed.body.error, "Virtual datapoint 'minutely' cannot be replayed: its pin 'P1' has the time trigger 'every_minute', whose outputs depend on the wall clock, not on stored data")
})

t.test('trust boundary: no grant, narrower TagAuth (output write, input read), another company', async (t) => {
  const { p, pid } = await setup(t)
  const role = async (name: string, endpoints: number[], tags: object[]) => {
    const r = await p.call(p.admin, 'POST', `${base(pid)}/role`, { name, authed_endpoints: endpoints, authed_tags: tags })
    const u = await addUser(p, name)
    await p.call(p.admin, 'POST', `${base(pid)}/role/${r.body.resource.id}/user/${u.id}`)
    return u
  }
  const all = { key: 'dataPointID', value: '*', read: true, write: true }
  const noGrant = await role('reader', [74], [all])
  const denied = await replay(p, pid, noGrant, RANGE)
  t.equal(denied.status, 403)
  t.equal(denied.body.error, 'Unauthorized access to endpoint: 76 - POST /v2/project/{project_id}/virtual_datapoint/replay')

  const readOnly = await role('readonly', [76], [{ key: 'dataPointID', value: '*', read: true, write: false }])
  const noWrite = await replay(p, pid, readOnly, RANGE)
  t.equal(noWrite.status, 403)
  t.equal(noWrite.body.error, "No write access to datapoint 'double'")

  const outputOnly = await role('outputonly', [76], [{ key: 'dataPointID', value: 'double', read: true, write: true }])
  const noInput = await replay(p, pid, outputOnly, RANGE)
  t.equal(noInput.status, 403)
  t.equal(noInput.body.error, "No read access to datapoint 'in'")

  const inputOnly = await role('inputonly', [76], [{ key: 'dataPointID', value: 'in', read: true, write: true }])
  t.equal((await replay(p, pid, inputOnly, RANGE)).status, 404, 'an output the caller cannot read is not found')

  const granted = await role('replayer', [76], [all])
  t.equal((await replay(p, pid, granted, RANGE)).status, 200, 'the grant and both accesses: replayed')

  const otherAdmin = { email: 'admin@other.test', password: 'other-pass-1' }
  await p.catalog.createCompanyWithAdmin('Other', otherAdmin)
  t.equal((await replay(p, pid, otherAdmin, RANGE)).status, 404, "another company's project is not found")
  t.same(await values(p, pid, 'double'), [1, 2, 3].map((v) => ({ time: `2024-01-01T00:0${v}:00Z`, value: 2 * v })))
})
