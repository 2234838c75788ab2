// Issue 9, items 3 and 9 (masking): attacks on the grant model. Two companies; users of the
// first hold narrow roles and try every way to combine, edit or assign roles to reach the
// hidden datapoint; the second company's admin attacks from outside. A permission is an
// (endpoint, datapoint filter) pair held by one role (DESIGN.md "grants").
import t, { type Test } from 'tap'
import { addProject, addUser, platform, type Login, type Platform } from '../helpers/platform.ts'

const READ_A = { key: 'room', value: 'A', read: true, write: false }
const READ_ALL = { key: 'dataPointID', value: '*', read: true, write: false }
const RW_ALL = { key: 'dataPointID', value: '*', read: true, write: true }

/** Acme with project P: `visible` (room A) and `hidden` (room B), one observation each; Beta beside it. */
async function world(t: Test) {
  const p = await platform(t)
  const proj = await addProject(p, p.admin, 'P')
  const base = `/v2/project/${proj.id}`
  t.equal((await p.call(p.admin, 'POST', `${base}/timeseries`, {
    visible: [{ time: '2024-01-01T00:00:00Z', value: 1 }], hidden: [{ time: '2024-01-01T00:00:00Z', value: 42 }],
  })).status, 200)
  const ids = new Map((await p.catalog.datapoints.listByProject(proj.id)).map((d) => [d.dataPointID, d.id]))
  await p.catalog.datapoints.setTag(ids.get('visible')!, 'room', 'A')
  await p.catalog.datapoints.setTag(ids.get('hidden')!, 'room', 'B')
  const beta = { email: 'boss@beta.test', password: 'beta-password' }
  await p.catalog.createCompanyWithAdmin('Beta', beta)

  const projectRole = async (name: string, authed_endpoints: number[], authed_tags: object[] = []): Promise<number> => {
    const res = await p.call(p.admin, 'POST', `${base}/role`, { name, authed_endpoints, authed_tags })
    if (res.status !== 201) throw new Error(JSON.stringify(res.body))
    return res.body.resource.id
  }
  const companyRole = async (name: string, authed_endpoints: number[]): Promise<number> => {
    const res = await p.call(p.admin, 'POST', '/v2/company/role', { name, authed_endpoints })
    if (res.status !== 201) throw new Error(JSON.stringify(res.body))
    return res.body.resource.id
  }
  const give = async (roleId: number, u: { id: number }, company = false) => {
    const url = company ? `/v2/company/role/${roleId}/user/${u.id}` : `${base}/role/${roleId}/user/${u.id}`
    const res = await p.call(p.admin, 'POST', url)
    if (res.status !== 201) throw new Error(JSON.stringify(res.body))
  }
  const read = async (who: Login, id: string) =>
    (await p.call(who, 'GET', `/v2/datapoint/timeseries?project_id=${proj.id}&dataPointID=${id}`)).status
  return { p, proj, base, beta, projectRole, companyRole, give, read }
}

const refused = (t: Test, res: { status: number; body: any }, error: string, operation: string, msg = 'refused') =>
  t.same(res, { status: 403, body: { success: false, error, operation } }, msg)

const ep52 = 'endpoint 52 - GET /v2/datapoint/timeseries'
const uncovered = (tag: string) => `Cannot grant TagAuth ${tag} for ${ep52}: none of your roles that grant this endpoint has a TagAuth covering it`

t.test('leak 1 (as reported): a TagAuth of one role combined with the endpoint of another', async (t) => {
  const { p, base, projectRole, give, read } = await world(t)
  const mallory = await addUser(p, 'mallory')
  // Reads room A through 52; manages roles with a broad TagAuth that comes with no read endpoint.
  const reader = await projectRole('reader', [52], [READ_A])
  await give(reader, mallory)
  await give(await projectRole('role-admin', [34, 36, 38, 40], [READ_ALL]), mallory)
  t.equal(await read(mallory, 'visible'), 200)
  t.equal(await read(mallory, 'hidden'), 404, 'before the attack')

  // Create a role pairing 52 (from reader) with dataPointID=* (from role-admin), then self-assign.
  refused(t, await p.call(mallory, 'POST', `${base}/role`, { name: 'steal', authed_endpoints: [52], authed_tags: [READ_ALL] }),
    uncovered('dataPointID=* (read true, write false)'), 'create', 'create: endpoint and TagAuth from different roles')
  refused(t, await p.call(mallory, 'PUT', `${base}/role/${reader}`, { authed_tags: [READ_ALL] }),
    uncovered('dataPointID=* (read true, write false)'), 'update', 'change the tags of the own reader role')
  refused(t, await p.call(mallory, 'POST', `${base}/role/${reader}/tagauth`, READ_ALL),
    uncovered('dataPointID=* (read true, write false)'), 'create', 'add a TagAuth to the own reader role')
  const roleAdmin = (await p.call(mallory, 'GET', '/v2/user')).body.roles.find((r: { name: string }) => r.name === 'role-admin').id
  refused(t, await p.call(mallory, 'PUT', `${base}/role/${roleAdmin}`, { authed_endpoints: [34, 36, 38, 40, 52] }),
    uncovered('dataPointID=* (read true, write false)'), 'update', 'add 52 to the role holding the broad TagAuth')

  // An endpoint-only role, then the broad TagAuth added to it.
  const bare = await p.call(mallory, 'POST', `${base}/role`, { name: 'bare', authed_endpoints: [52] })
  t.equal(bare.status, 201, 'granting 52 without TagAuths is within her reach')
  refused(t, await p.call(mallory, 'POST', `${base}/role/${bare.body.resource.id}/tagauth`, READ_ALL),
    uncovered('dataPointID=* (read true, write false)'), 'create', 'then adding the TagAuth')
  refused(t, await p.call(mallory, 'PUT', `${base}/role/${bare.body.resource.id}`, { authed_tags: [READ_ALL] }),
    uncovered('dataPointID=* (read true, write false)'), 'update')
  // A TagAuth-only role grants nothing; giving it the endpoint later is checked on the whole role.
  const tagsOnly = await p.call(mallory, 'POST', `${base}/role`, { name: 'tags-only', authed_tags: [READ_ALL] })
  t.equal(tagsOnly.status, 201, 'a TagAuth without an endpoint grants no pair')
  refused(t, await p.call(mallory, 'PUT', `${base}/role/${tagsOnly.body.resource.id}`, { authed_endpoints: [52] }),
    uncovered('dataPointID=* (read true, write false)'), 'update', 'adding the endpoint to the TagAuth-only role')
  t.equal((await p.call(mallory, 'POST', `${base}/role/${tagsOnly.body.resource.id}/user/${mallory.id}`)).status, 201)
  t.equal((await p.call(mallory, 'POST', `${base}/role/${bare.body.resource.id}/user/${mallory.id}`)).status, 201)

  t.equal(await read(mallory, 'hidden'), 404, 'after every attempt the hidden datapoint stays hidden')
  t.equal(await read(mallory, 'visible'), 200)
})

t.test('leak 2 (as reported): a company role granting only endpoint 10 counted as covering every TagAuth', async (t) => {
  const { p, proj, base, projectRole, companyRole, give, read } = await world(t)
  const carol = await addUser(p, 'carol')
  await give(await companyRole('company-viewer', [10]), carol, true)
  await give(await projectRole('room-a', [34, 40, 52], [READ_A]), carol)
  t.equal((await p.call(carol, 'GET', '/v2/company')).status, 200)
  t.equal(await read(carol, 'hidden'), 404, 'endpoint 10 of a company role reaches no datapoint through 52')

  refused(t, await p.call(carol, 'POST', `${base}/role`, { name: 'all', authed_endpoints: [52], authed_tags: [READ_ALL] }),
    uncovered('dataPointID=* (read true, write false)'), 'create')
  refused(t, await p.call(carol, 'POST', `${base}/role/${proj.adminRoleId}/user/${carol.id}`),
    `Cannot assign role ${proj.adminRoleId} 'admin': it grants endpoint 30 - GET /v2/project/{project_id}, and it is not in your own permissions`,
    'create', 'nor may she assign the project admin role to herself')
  t.equal(await read(carol, 'hidden'), 404)

  // With 52 in a company role, though, every datapoint of every project is hers to grant.
  const dave = await addUser(p, 'dave')
  await give(await companyRole('reader-everywhere', [52]), dave, true)
  await give(await projectRole('granter', [34, 40]), dave)
  const all = await p.call(dave, 'POST', `${base}/role`, { name: 'all-reader', authed_endpoints: [52], authed_tags: [READ_ALL] })
  t.equal(all.status, 201, 'a company role granting 52 covers every TagAuth for 52')
  refused(t, await p.call(dave, 'POST', `${base}/role`, { name: 'all-writer', authed_endpoints: [50], authed_tags: [RW_ALL] }),
    'Cannot grant endpoint 50 - POST /v2/project/{project_id}/timeseries: it is not in your own permissions', 'create', 'but only for 52')
})

t.test('granting is checked per pair: union of roles for one endpoint, split read and write', async (t) => {
  const { p, base, projectRole, give, read } = await world(t)
  const erin = await addUser(p, 'erin')
  await give(await projectRole('a-reader', [34, 40, 52], [READ_A]), erin)
  await give(await projectRole('b-reader', [52], [{ key: 'room', value: 'B', read: true, write: false }]), erin)
  await give(await projectRole('a-writer', [52], [{ key: 'room', value: 'A', read: false, write: true }]), erin)
  const both = await p.call(erin, 'POST', `${base}/role`, {
    name: 'a-and-b', authed_endpoints: [52], authed_tags: [READ_A, { key: 'room', value: 'B', read: true, write: false }],
  })
  t.equal(both.status, 201, 'two roles that both grant 52 cover one TagAuth each')
  t.equal((await p.call(erin, 'POST', `${base}/role`, { name: 'a-rw', authed_endpoints: [52], authed_tags: [{ key: 'room', value: 'A', read: true, write: true }] })).status,
    201, 'read from one role and write from another, both for 52')
  refused(t, await p.call(erin, 'POST', `${base}/role`, { name: 'any-room', authed_endpoints: [52], authed_tags: [{ key: 'room', value: '*', read: true, write: false }] }),
    uncovered('room=* (read true, write false)'), 'create', 'room=A and room=B do not make room=*')
  refused(t, await p.call(erin, 'POST', `${base}/role`, { name: 'b-grant', authed_endpoints: [34], authed_tags: [{ key: 'room', value: 'B', read: true, write: false }] }),
    'Cannot grant TagAuth room=B (read true, write false) for endpoint 34 - POST /v2/project/{project_id}/role: none of your roles that grant this endpoint has a TagAuth covering it',
    'create', 'every endpoint of a role pairs with all of its TagAuths')
  t.equal(await read(erin, 'hidden'), 200, 'b-reader does let her read room B')
})

t.test('handling a role needs every pair of it: change, delete, assign, unassign, TagAuths', async (t) => {
  const { p, base, projectRole, companyRole, give } = await world(t)
  const mgr = await addUser(p, 'manager')
  const victim = await addUser(p, 'victim')
  await give(await projectRole('manager', [34, 36, 37, 38, 39, 40, 41, 52], [READ_A]), mgr)
  const broad = await projectRole('broad', [52], [READ_ALL])
  await give(broad, victim)
  const broadText = (action: string) => `Cannot ${action} role ${broad} 'broad': it grants TagAuth dataPointID=* (read true, write false) for ${ep52}, and none of your roles that grant this endpoint has a TagAuth covering it`
  refused(t, await p.call(mgr, 'PUT', `${base}/role/${broad}`, { authed_tags: [READ_A] }), broadText('change'), 'update')
  refused(t, await p.call(mgr, 'DELETE', `${base}/role/${broad}`), broadText('delete'), 'delete')
  refused(t, await p.call(mgr, 'POST', `${base}/role/${broad}/user/${mgr.id}`), broadText('assign'), 'create')
  refused(t, await p.call(mgr, 'DELETE', `${base}/role/${broad}/user/${victim.id}`), broadText('unassign'), 'delete')
  const tagId = (await p.call(p.admin, 'GET', `${base}/role/${broad}`)).body.authed_tags[0].id
  refused(t, await p.call(mgr, 'DELETE', `${base}/role/${broad}/tagauth/${tagId}`), broadText('change'), 'delete')
  refused(t, await p.call(mgr, 'POST', `${base}/role/${broad}/tagauth`, READ_A), broadText('change'), 'create')

  // Within his reach every path works.
  const own = await p.call(mgr, 'POST', `${base}/role`, { name: 'a-only', authed_endpoints: [52], authed_tags: [READ_A] })
  t.equal(own.status, 201)
  const id = own.body.resource.id
  t.equal((await p.call(mgr, 'PUT', `${base}/role/${id}`, { name: 'a-only-2', authed_tags: [READ_A, READ_A] })).status, 200)
  const added = await p.call(mgr, 'POST', `${base}/role/${id}/tagauth`, { key: 'room', value: 'A', read: true, write: false })
  t.equal(added.status, 201)
  t.equal((await p.call(mgr, 'DELETE', `${base}/role/${id}/tagauth/${added.body.resource.authed_tags[0].id}`)).status, 200)
  t.equal((await p.call(mgr, 'POST', `${base}/role/${id}/user/${victim.id}`)).status, 201)
  t.equal((await p.call(mgr, 'DELETE', `${base}/role/${id}/user/${victim.id}`)).status, 200)
  t.equal((await p.call(mgr, 'DELETE', `${base}/role/${id}`)).status, 200)

  // Company roles: each endpoint is (endpoint, all datapoints), only company roles hold those.
  const hr = await addUser(p, 'hr')
  await give(await companyRole('role-granter', [15, 17, 18, 19, 20]), hr, true)
  await give(await projectRole('p-reader', [52], [READ_ALL]), hr)
  refused(t, await p.call(hr, 'POST', '/v2/company/role', { name: 'c52', authed_endpoints: [52] }),
    `Cannot grant ${ep52}: it is not in your own permissions`, 'create', 'a project role does not reach every project')
  const wide = await companyRole('wide', [10, 52])
  refused(t, await p.call(hr, 'POST', `/v2/company/role/${wide}/user/${hr.id}`),
    `Cannot assign role ${wide} 'wide': it grants endpoint 10 - GET /v2/company, and it is not in your own permissions`, 'create')
  refused(t, await p.call(hr, 'PUT', `/v2/company/role/${wide}`, { authed_endpoints: [] }),
    `Cannot change role ${wide} 'wide': it grants endpoint 10 - GET /v2/company, and it is not in your own permissions`, 'update')
  refused(t, await p.call(hr, 'DELETE', `/v2/company/role/${wide}`),
    `Cannot delete role ${wide} 'wide': it grants endpoint 10 - GET /v2/company, and it is not in your own permissions`, 'delete')
  const mine = await p.call(hr, 'POST', '/v2/company/role', { name: 'small', authed_endpoints: [15] })
  t.equal(mine.status, 201)
  refused(t, await p.call(hr, 'PUT', `/v2/company/role/${mine.body.resource.id}`, { authed_endpoints: [15, 52] }),
    `Cannot grant ${ep52}: it is not in your own permissions`, 'update', 'widening an own company role')
  const adminRole = (await p.call(p.admin, 'GET', '/v2/company/roles')).body.find((r: { name: string }) => r.name === 'admin').id
  t.equal((await p.call(hr, 'POST', `/v2/company/role/${adminRole}/user/${hr.id}`)).status, 403, 'nor the company admin role')
})

t.test('datapoint routes use the filter of their own endpoint', async (t) => {
  const { p, proj, base, projectRole, companyRole, give, read } = await world(t)
  const u = await addUser(p, 'split')
  await give(await companyRole('viewer', [10]), u, true)
  await give(await projectRole('writes-all', [50, 51], [RW_ALL]), u)
  await give(await projectRole('reads-a', [30, 52], [READ_A]), u)
  t.equal(await read(u, 'hidden'), 404, 'the write TagAuth of another role is not a read grant for 52')
  const listed = (await p.call(u, 'GET', base)).body.datapoints.map((d: { dataPointID: string }) => d.dataPointID)
  t.same(listed, ['visible'], 'GET project lists through 30 only')
  t.equal((await p.call(u, 'POST', `${base}/timeseries`, { hidden: [{ time: '2024-01-02T00:00:00Z', value: 1 }] })).status, 200, '50 writes everywhere')

  const w = await addUser(p, 'writer-a')
  await give(await projectRole('reads-all', [52], [READ_ALL]), w)
  await give(await projectRole('writes-a', [50, 51], [{ key: 'room', value: 'A', read: false, write: true }]), w)
  const json = await p.call(w, 'POST', `${base}/timeseries`, { hidden: [{ time: '2024-01-03T00:00:00Z', value: 9 }] })
  t.same(json, { status: 403, body: { success: false, error: "No write access to datapoint 'hidden'", operation: '' } }, 'JSON ingest: read-all is no write grant')
  const boundary = '----lintel-grants'
  const csv = await p.app.inject({
    method: 'POST', url: `${base}/importTimeseries?format=csv&on_error=abort`,
    payload: `--${boundary}\r\nContent-Disposition: form-data; name="import_file"; filename="x.csv"\r\nContent-Type: text/csv\r\n\r\nvisible,5,2024-01-04T00:00:00Z\nhidden,7,2024-01-04T00:00:00Z\r\n--${boundary}--\r\n`,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, authorization: 'Basic ' + Buffer.from(`${w.email}:${w.password}`).toString('base64') },
  })
  t.match(csv.json(), { success: false, error: /No write access to datapoint 'hidden'/ }, 'CSV import: refused for the hidden datapoint')
  const values = (await p.call(p.admin, 'GET', `/v2/datapoint/timeseries?project_id=${proj.id}&dataPointID=hidden`)).body.data.map((d: { value: number }) => d.value)
  t.same(values, [42, 1], 'nothing of the refused writes was stored')
})

t.test('virtual datapoints: pins the caller cannot read are masked (issue 9, item 9)', async (t) => {
  const { p, proj, base, projectRole, give } = await world(t)
  const mix = await p.call(p.admin, 'POST', `${base}/virtual_datapoint?dataPointID=mix&type=formula`, {
    pins: { P1: { dataPointID: 'visible' }, P2: { dataPointID: 'hidden', data_range: { count: 2 } } }, parameters: { formula: 'P1 + P2' },
  })
  t.equal(mix.status, 201)
  t.same(mix.body.resource.pins.P2, { dataPointID: 'hidden', data_range: { count: 2 } }, 'the admin sees every pin')
  await p.catalog.datapoints.setTag((await p.catalog.datapoints.find(proj.id, 'mix'))!.id, 'room', 'A')
  const u = await addUser(p, 'vdp-user')
  await give(await projectRole('vdp-a', [70, 71, 72, 74, 75], [
    { key: 'room', value: 'A', read: true, write: true }, { key: 'dataPointID', value: 'mine', read: true, write: true },
  ]), u)
  const masked = { dataPointID: null, masked: true, data_range: { count: 2 } }

  const one = await p.call(u, 'GET', `${base}/virtual_datapoint?dataPointID=mix`)
  t.equal(one.status, 200)
  t.same(one.body.pins, { P1: { dataPointID: 'visible' }, P2: masked }, 'GET one')
  t.notMatch(JSON.stringify(one.body), /hidden/, 'the name appears nowhere in the answer')
  const ran = await p.call(u, 'POST', `${base}/virtual_datapoint/run?dataPointID=mix&run=true`)
  t.same(ran.body.pins.P2, masked, 'run')
  t.notMatch(JSON.stringify(ran.body), /hidden/)
  const stopped = await p.call(u, 'POST', `${base}/virtual_datapoint/run?dataPointID=mix&run=false`)
  t.same(stopped.body.pins.P2, masked, 'stop')
  t.same((await p.call(u, 'PUT', `${base}/virtual_datapoint?dataPointID=mix`, { description: 'd' })).body.pins.P2, masked, 'change')
  const list = await p.call(u, 'GET', `${base}/virtual_datapoints`)
  t.same(list.body.items, [{ dataPointID: 'mix', status: 'Stopped' }], 'list: no pins shown')
  const made = await p.call(u, 'POST', `${base}/virtual_datapoint?dataPointID=mine&type=formula`, { pins: { P1: { dataPointID: 'visible' } }, parameters: { formula: 'P1' } })
  t.same(made.body.resource.pins, { P1: { dataPointID: 'visible' } }, 'create: own readable inputs stay visible')
  const sneaky = await p.call(u, 'POST', `${base}/virtual_datapoint?dataPointID=mine2&type=formula`, { pins: { P1: { dataPointID: 'hidden' } }, parameters: { formula: 'P1' } })
  t.same(sneaky, { status: 403, body: { success: false, error: "No read access to datapoint 'hidden'", operation: 'create' } }, 'create from an unreadable input: 403 (issue 15, drift 4)')
  const mixedPins = await p.call(u, 'POST', `${base}/virtual_datapoint?dataPointID=mine3&type=formula`, { pins: { P1: { dataPointID: 'visible' }, P2: { dataPointID: 'hidden' } }, parameters: { formula: 'P1 + P2' } })
  t.same(mixedPins, { status: 403, body: { success: false, error: "No read access to datapoint 'hidden'", operation: 'create' } }, 'one unreadable pin among readable ones is enough')
  const intoHidden = await p.call(u, 'POST', `${base}/virtual_datapoint?dataPointID=hidden&type=formula`, { pins: { P1: { dataPointID: 'visible' } }, parameters: { formula: 'P1' } })
  t.same(intoHidden, { status: 403, body: { success: false, error: "No write access to datapoint 'hidden'", operation: 'create' } }, 'create into an unwritable output: 403')
  const r = await addUser(p, 'vdp-reader')
  await give(await projectRole('vdp-read-a', [70], [READ_A]), r)
  const readOnly = await p.call(r, 'POST', `${base}/virtual_datapoint?dataPointID=visible&type=formula`, { pins: { P1: { dataPointID: 'visible' } }, parameters: { formula: 'P1' } })
  t.same(readOnly, { status: 403, body: { success: false, error: "No write access to datapoint 'visible'", operation: 'create' } }, 'a readable output without write is refused too')
  t.equal((await p.call(p.admin, 'GET', `${base}/virtual_datapoints`)).body.items.length, 2, 'none of the refused creates left a record')
  const other = await p.call(u, 'GET', `${base}/virtual_datapoint?dataPointID=nope`)
  t.equal(other.status, 404)
})

t.test('virtual datapoints: read on the output is not write; starting, stopping, changing and deleting need write', async (t) => {
  const { p, proj, base, projectRole, give } = await world(t)
  t.equal((await p.call(p.admin, 'POST', `${base}/virtual_datapoint?dataPointID=out&type=formula`, { pins: { P1: { dataPointID: 'visible' } }, parameters: { formula: 'P1 * 2' } })).status, 201)
  await p.catalog.datapoints.setTag((await p.catalog.datapoints.find(proj.id, 'out'))!.id, 'room', 'A')
  const u = await addUser(p, 'vdp-viewer')
  await give(await projectRole('vdp-read-only', [71, 72, 73, 74], [READ_A]), u)
  t.equal((await p.call(u, 'GET', `${base}/virtual_datapoint?dataPointID=out`)).status, 200, 'reading it is fine')
  const noWrite = { status: 403, body: { success: false, error: "No write access to datapoint 'out'", operation: '' } }
  const res = async (method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => {
    const r = await p.call(u, method, url, body)
    return { status: r.status, body: { ...r.body, operation: '' } }
  }
  t.same(await res('POST', `${base}/virtual_datapoint/run?dataPointID=out&run=true`), noWrite, 'start')
  t.same(await res('PUT', `${base}/virtual_datapoint?dataPointID=out`, { description: 'mine' }), noWrite, 'change')
  t.same(await res('DELETE', `${base}/virtual_datapoint?dataPointID=out`), noWrite, 'delete')
  t.equal((await p.call(p.admin, 'POST', `${base}/virtual_datapoint/run?dataPointID=out&run=true`)).body.status, 'Running')
  t.same(await res('POST', `${base}/virtual_datapoint/run?dataPointID=out&run=false`), noWrite, 'stop')
  const after = (await p.call(p.admin, 'GET', `${base}/virtual_datapoint?dataPointID=out`)).body
  t.same([after.status, after.description], ['Running', ''], 'still running, unchanged')
  t.equal((await p.call(u, 'POST', `${base}/virtual_datapoint/run?dataPointID=hidden&run=false`)).status, 404, 'one it cannot read does not exist for it')
  await p.call(p.admin, 'POST', `${base}/virtual_datapoint/run?dataPointID=out&run=false`)
})

t.test('another company attacks: roles, assignments and grants across companies', async (t) => {
  const { p, proj, base, beta, projectRole } = await world(t)
  const reader = await projectRole('acme-reader', [52], [READ_ALL])
  const betaProj = await addProject(p, beta, 'B')
  const betaUser = (await p.call(beta, 'GET', '/v2/company')).body.users[0]
  const notFound = (res: { status: number }, msg: string) => t.equal(res.status, 404, msg)
  notFound(await p.call(beta, 'POST', `${base}/role/${reader}/user/${betaUser.id}`), 'assign an Acme role to itself')
  notFound(await p.call(beta, 'PUT', `${base}/role/${reader}`, { name: 'x' }), 'change an Acme role')
  notFound(await p.call(beta, 'POST', `${base}/role`, { name: 'x', authed_endpoints: [52], authed_tags: [READ_ALL] }), 'create a role in an Acme project')
  notFound(await p.call(beta, 'POST', `/v2/project/${betaProj.id}/role/${betaProj.adminRoleId}/user/${p.admin.id}`), 'hand its role to an Acme user')
  // Its own admin role, named after an Acme project: the project is resolved within Beta only.
  notFound(await p.call(beta, 'GET', `/v2/datapoint/timeseries?project_id=${proj.id}&dataPointID=hidden`), 'read Acme data')
  const betaRole = await p.call(beta, 'POST', `/v2/project/${betaProj.id}/role`, { name: 'r', authed_endpoints: [52], authed_tags: [READ_ALL] })
  t.equal(betaRole.status, 201, 'within its own project the Beta admin grants freely')
  notFound(await p.call(beta, 'POST', `${base}/role/${betaRole.body.resource.id}/user/${betaUser.id}`), 'a Beta role under an Acme project path')
})

t.test('editing a role within reach never widens it: PUT endpoints or TagAuths, added TagAuths, write from read', async (t) => {
  const { p, base, projectRole, give, read } = await world(t)
  const eve = await addUser(p, 'eve')
  // Eve manages roles and reads room A (read only); she holds the role she will try to widen.
  await give(await projectRole('manager', [34, 36, 38, 39, 40, 52], [READ_A]), eve)
  const own = await p.call(eve, 'POST', `${base}/role`, { name: 'own', authed_endpoints: [52], authed_tags: [READ_A] })
  t.equal(own.status, 201)
  const id = own.body.resource.id
  t.equal((await p.call(eve, 'POST', `${base}/role/${id}/user/${eve.id}`)).status, 201, 'she may hold her own narrow role')
  const before = (await p.call(p.admin, 'GET', `${base}/role/${id}`)).body

  refused(t, await p.call(eve, 'PUT', `${base}/role/${id}`, { authed_tags: [READ_ALL] }),
    uncovered('dataPointID=* (read true, write false)'), 'update', 'PUT to a wider TagAuth')
  refused(t, await p.call(eve, 'PUT', `${base}/role/${id}`, { authed_tags: [{ key: 'room', value: 'A', read: true, write: true }] }),
    uncovered('room=A (read true, write true)'), 'update', 'PUT adding write where she only reads')
  refused(t, await p.call(eve, 'PUT', `${base}/role/${id}`, { authed_endpoints: [52, 50] }),
    'Cannot grant endpoint 50 - POST /v2/project/{project_id}/timeseries: it is not in your own permissions', 'update', 'PUT adding an endpoint she lacks')
  refused(t, await p.call(eve, 'POST', `${base}/role/${id}/tagauth`, { key: 'room', value: 'B', read: true, write: false }),
    uncovered('room=B (read true, write false)'), 'create', 'adding a TagAuth for another room')
  refused(t, await p.call(eve, 'POST', `${base}/role/${id}/tagauth`, { key: 'dataPointID', value: 'hidden', read: true, write: false }),
    uncovered('dataPointID=hidden (read true, write false)'), 'create', 'adding a TagAuth naming the hidden datapoint')
  t.same((await p.call(p.admin, 'GET', `${base}/role/${id}`)).body, before, 'the role is unchanged')
  t.equal(await read(eve, 'hidden'), 404, 'and the hidden datapoint stays hidden')
})
