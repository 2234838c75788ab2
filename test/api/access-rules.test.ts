// Access rules 1-9 of spec 1, each proven on both sides of its boundary.
import t from 'tap'
import { addProject, addUser, platform, type Platform, type Login } from '../helpers/platform.ts'

async function companyRole(p: Platform, name: string, endpoints: number[]): Promise<number> {
  const res = await p.call(p.admin, 'POST', '/v2/company/role', { name, authed_endpoints: endpoints })
  if (res.status !== 201) throw new Error(JSON.stringify(res.body))
  return res.body.resource.id
}
async function assignCompanyRole(p: Platform, roleId: number, userId: number, by: Login = p.admin) {
  return p.call(by, 'POST', `/v2/company/role/${roleId}/user/${userId}`)
}

t.test('rule 1: default deny, except the own record', async (t) => {
  const p = await platform(t)
  const u = await addUser(p, 'nobody')
  t.same(await p.call(u, 'GET', '/v2/company'), {
    status: 403, body: { success: false, error: 'Unauthorized access to endpoint: 10 - GET /v2/company', operation: '' },
  })
  const denied = await p.call(u, 'POST', '/v2/company/project', { name: 'x' })
  t.same(denied.body, { success: false, error: 'Unauthorized access to endpoint: 11 - POST /v2/company/project', operation: 'create' })
  t.equal((await p.call(u, 'GET', '/v2/user')).status, 200, 'own record needs no grant')
  t.equal((await p.call(u, 'PUT', '/v2/user', { firstName: 'Some' })).status, 200)
  t.same((await p.call(u, 'GET', '/v2/user/projects')).body, [])
  t.equal((await p.call(u, 'GET', '/v2/endpoints')).status, 200)

  const role = await companyRole(p, 'reader', [10])
  await assignCompanyRole(p, role, u.id)
  t.equal((await p.call(u, 'GET', '/v2/company')).status, 200, 'a granted endpoint is allowed')
  t.equal((await p.call(u, 'POST', '/v2/company/project', { name: 'x' })).status, 403, 'only the granted one')
})

t.test('rule 2: union of roles; a role lacking a grant revokes nothing', async (t) => {
  const p = await platform(t)
  const u = await addUser(p, 'multi')
  await assignCompanyRole(p, await companyRole(p, 'a', [10]), u.id)
  await assignCompanyRole(p, await companyRole(p, 'b', [14]), u.id)
  await assignCompanyRole(p, await companyRole(p, 'empty', []), u.id)
  t.equal((await p.call(u, 'GET', '/v2/company')).status, 200)
  t.equal((await p.call(u, 'GET', '/v2/company/roles')).status, 200)
  t.equal((await p.call(u, 'GET', '/v2/user')).body.companyroles.length, 3)
  t.equal((await p.call(u, 'POST', '/v2/company/role', { name: 'x' })).status, 403)
})

t.test('rule 3: no granting beyond the own permission set', async (t) => {
  const p = await platform(t)
  const u = await addUser(p, 'granter')
  const other = await addUser(p, 'other')
  await assignCompanyRole(p, await companyRole(p, 'role-maker', [10, 15, 19]), u.id)

  const beyond = await p.call(u, 'POST', '/v2/company/role', { name: 'too-much', authed_endpoints: [10, 11] })
  t.same(beyond, { status: 403, body: { success: false, error: 'Cannot grant endpoint 11 - POST /v2/company/project: it is not in your own permissions', operation: 'create' } })
  const within = await p.call(u, 'POST', '/v2/company/role', { name: 'ok', authed_endpoints: [10] })
  t.equal(within.status, 201)

  const big = await companyRole(p, 'big', [10, 11])
  t.equal((await assignCompanyRole(p, big, other.id, u)).status, 403, 'cannot hand out a role holding more than oneself')
  const ok = await assignCompanyRole(p, within.body.resource.id, other.id, u)
  t.same(ok, { status: 201, body: { success: true, operation: 'create', resource: { role_id: within.body.resource.id, user_id: other.id } } })

  // Project level: TagAuths must lie within the granter's own TagAuths.
  const proj = await addProject(p, p.admin, 'P')
  const pr = await p.call(p.admin, 'POST', `/v2/project/${proj.id}/role`, {
    name: 'room-a-manager', authed_endpoints: [30, 34, 40], authed_tags: [{ key: 'room', value: 'A', read: true, write: false }],
  })
  t.equal(pr.status, 201)
  const mgr = await addUser(p, 'manager')
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${proj.id}/role/${pr.body.resource.id}/user/${mgr.id}`)).status, 201)
  const other2 = await p.call(mgr, 'POST', `/v2/project/${proj.id}/role`, { name: 'b', authed_endpoints: [30], authed_tags: [{ key: 'room', value: 'B', read: true, write: false }] })
  t.equal(other2.status, 403)
  t.equal(other2.body.error, 'Cannot grant TagAuth room=B (read true, write false) for endpoint 30 - GET /v2/project/{project_id}: none of your roles that grant this endpoint has a TagAuth covering it')
  const writeToo = await p.call(mgr, 'POST', `/v2/project/${proj.id}/role`, { name: 'w', authed_endpoints: [30], authed_tags: [{ key: 'room', value: 'A', read: true, write: true }] })
  t.equal(writeToo.status, 403, 'read does not let one grant write')
  const moreEndpoints = await p.call(mgr, 'POST', `/v2/project/${proj.id}/role`, { name: 'e', authed_endpoints: [31] })
  t.equal(moreEndpoints.status, 403)
  const same = await p.call(mgr, 'POST', `/v2/project/${proj.id}/role`, { name: 'a-reader', authed_endpoints: [30], authed_tags: [{ key: 'room', value: 'A', read: true, write: false }] })
  t.equal(same.status, 201)
})

t.test('rule 4: company roles cover later projects; project roles cannot grant Company endpoints', async (t) => {
  const p = await platform(t)
  const u = await addUser(p, 'viewer')
  await assignCompanyRole(p, await companyRole(p, 'project-viewer', [30]), u.id)
  const later = await addProject(p, p.admin, 'Later')
  t.equal((await p.call(u, 'GET', `/v2/project/${later.id}`)).status, 200, 'a project created after the role')
  t.equal((await p.call(u, 'PUT', `/v2/project/${later.id}`, { name: 'x' })).status, 403)

  const refused = await p.call(p.admin, 'POST', `/v2/project/${later.id}/role`, { name: 'x', authed_endpoints: [17] })
  t.same(refused, { status: 400, body: { success: false, error: 'A project role cannot grant the Company endpoint 17 - PUT /v2/company/role/{role_id}', operation: 'create' } })
  const unknown = await p.call(p.admin, 'POST', `/v2/project/${later.id}/role`, { name: 'x', authed_endpoints: [9999] })
  t.equal(unknown.body.error, 'Unknown endpoint number: 9999')

  // A project role reaches its own project only.
  const other = await addProject(p, p.admin, 'Other')
  const pr = await p.call(p.admin, 'POST', `/v2/project/${later.id}/role`, { name: 'editor', authed_endpoints: [30, 31] })
  const ed = await addUser(p, 'editor')
  await p.call(p.admin, 'POST', `/v2/project/${later.id}/role/${pr.body.resource.id}/user/${ed.id}`)
  t.equal((await p.call(ed, 'PUT', `/v2/project/${later.id}`, { description: 'd' })).status, 200)
  t.same((await p.call(ed, 'GET', `/v2/project/${other.id}`)).body.error, 'Unauthorized access to endpoint: 30 - GET /v2/project/{project_id}')
  t.same((await p.call(ed, 'GET', '/v2/user/projects')).body.map((x: { id: number }) => x.id), [later.id])
})

t.test('rule 5: TagAuths filter datapoints by name or tag, with * and read/write', async (t) => {
  const p = await platform(t)
  const proj = await addProject(p, p.admin, 'Building')
  const ids = await p.catalog.datapoints.ensure(proj.id, ['t-a', 't-b', 'power', 'x/y "z"'])
  await p.catalog.datapoints.setTag(ids.get('t-a')!, 'room', 'A')
  await p.catalog.datapoints.setTag(ids.get('t-b')!, 'room', 'B')
  const visible = async (tags: object[]) => {
    const role = await p.call(p.admin, 'POST', `/v2/project/${proj.id}/role`, { name: `r${Math.random()}`, authed_endpoints: [30], authed_tags: tags })
    const u = await addUser(p, `u${role.body.resource.id}`)
    await p.call(p.admin, 'POST', `/v2/project/${proj.id}/role/${role.body.resource.id}/user/${u.id}`)
    return (await p.call(u, 'GET', `/v2/project/${proj.id}`)).body.datapoints.map((d: { dataPointID: string }) => d.dataPointID).sort()
  }
  t.same(await visible([{ key: 'room', value: 'A', read: true, write: false }]), ['t-a'])
  t.same(await visible([{ key: 'room', value: '*', read: true, write: false }]), ['t-a', 't-b'], '* matches any value of the key')
  t.same(await visible([{ key: 'dataPointID', value: 'power', read: true, write: false }]), ['power'], 'by name')
  t.same(await visible([{ key: 'dataPointID', value: 'x/y "z"', read: true, write: false }]), ['x/y "z"'])
  t.same(await visible([{ key: 'room', value: 'A', read: false, write: true }]), [], 'write-only does not grant read')
  t.same(await visible([]), [], 'no TagAuth, no datapoints')
  t.same((await p.call(p.admin, 'GET', `/v2/project/${proj.id}`)).body.datapoints.length, 4, 'company roles see all')
  const dp = (await p.call(p.admin, 'GET', `/v2/project/${proj.id}`)).body.datapoints.find((d: { dataPointID: string }) => d.dataPointID === 't-a')
  t.match(dp, { dataPointID: 't-a', hash_id: /^[0-9A-Za-z]{8}$/, tags: { room: 'A' }, project_id: proj.id })
})

t.test('rule 6: automatic admin roles; the project creator holds the project admin role', async (t) => {
  const p = await platform(t)
  const creator = await addUser(p, 'creator')
  await assignCompanyRole(p, await companyRole(p, 'creators', [11]), creator.id)
  const proj = await addProject(p, creator, 'Mine')
  const me = await p.call(creator, 'GET', '/v2/user')
  t.match(me.body.roles, [{ name: 'admin', project_id: proj.id, authed_endpoints: [30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41] }])
  t.equal((await p.call(creator, 'PUT', `/v2/project/${proj.id}`, { name: 'Mine!' })).status, 200, 'via the project admin role')
  t.match((await p.call(p.admin, 'GET', '/v2/company/roles')).body, [{ name: 'admin' }, { name: 'creators' }])
  const adminRole = (await p.call(p.admin, 'GET', '/v2/company/roles')).body[0]
  t.ok(adminRole.authed_endpoints.includes(17) && adminRole.authed_endpoints.includes(30), 'company admin: all company and project endpoints')
  const change = await p.call(p.admin, 'PUT', `/v2/company/role/${adminRole.id}`, { authed_endpoints: [] })
  t.same(change, { status: 400, body: { success: false, error: 'The admin role cannot be changed or deleted', operation: 'update' } })
  t.equal((await p.call(creator, 'DELETE', `/v2/project/${proj.id}/role/${proj.adminRoleId}`)).status, 400)
})

t.test('rule 7: one role for many users, many roles for one user; unassign', async (t) => {
  const p = await platform(t)
  const [a, b] = [await addUser(p, 'a'), await addUser(p, 'b')]
  const r1 = await companyRole(p, 'r1', [10])
  const r2 = await companyRole(p, 'r2', [14])
  for (const u of [a, b]) await assignCompanyRole(p, r1, u.id)
  await assignCompanyRole(p, r2, a.id)
  t.equal((await p.call(b, 'GET', '/v2/company')).status, 200)
  t.equal((await p.call(a, 'GET', '/v2/user')).body.companyroles.length, 2)
  const un = await p.call(p.admin, 'DELETE', `/v2/company/role/${r1}/user/${b.id}`)
  t.same(un.body, { success: true, operation: 'delete', resource: { role_id: r1, user_id: b.id } })
  t.equal((await p.call(b, 'GET', '/v2/company')).status, 403)
  t.equal((await p.call(a, 'GET', '/v2/company')).status, 200, 'other holders keep it')
  t.equal((await p.call(p.admin, 'DELETE', `/v2/company/role/${r1}/user/${b.id}`)).status, 404)
})

t.test('rule 8: only the own account changes; company roles create users', async (t) => {
  const p = await platform(t)
  const u = await addUser(p, 'self')
  const upd = await p.call(u, 'PUT', '/v2/user', { lastName: 'Changed' })
  t.equal(upd.body.resource.id, u.id)
  t.equal((await p.call(p.admin, 'GET', '/v2/user')).body.user.lastName, 'Acme', 'the admin is untouched')
  const noRole = await p.call(u, 'POST', '/v2/company/user', { company_id: p.admin.companyId, firstName: 'x', lastName: 'y', email: 'n@acme.test', password: 'password-x' })
  t.equal(noRole.status, 403)
  await assignCompanyRole(p, await companyRole(p, 'hr', [13]), u.id)
  const made = await p.call(u, 'POST', '/v2/company/user', { company_id: p.admin.companyId, firstName: 'x', lastName: 'y', email: 'n@acme.test', password: 'password-x' })
  t.equal(made.status, 201)
  t.equal(made.body.resource.company_id, p.admin.companyId)
  t.equal((await p.call({ email: 'n@acme.test', password: 'password-x' }, 'GET', '/v2/user')).status, 200, 'the new user can log in')
})

t.test('rule 9: deleting a project or a user removes its metadata', async (t) => {
  const p = await platform(t)
  const proj = await addProject(p, p.admin, 'Doomed')
  const ids = await p.catalog.datapoints.ensure(proj.id, ['a', 'b'])
  await p.catalog.datapoints.setTag(ids.get('a')!, 'room', 'A')
  const role = await p.call(p.admin, 'POST', `/v2/project/${proj.id}/role`, { name: 'r', authed_endpoints: [30] })
  const u = await addUser(p, 'holder')
  await p.call(p.admin, 'POST', `/v2/project/${proj.id}/role/${role.body.resource.id}/user/${u.id}`)
  t.equal((await p.call(p.admin, 'DELETE', `/v2/project/${proj.id}`)).status, 200)
  t.equal((await p.catalog.roles.listProjectRoles(proj.id)).length, 0, 'roles')
  t.equal((await p.catalog.datapoints.listByProject(proj.id)).length, 0, 'datapoint keys')
  t.same(await p.catalog.datapoints.tagsOf(ids.get('a')!), {}, 'tags')
  t.same((await p.call(u, 'GET', '/v2/user')).body.roles, [], 'assignments')

  const token = (await p.call(u, 'POST', '/v2/auth/token')).body.resource.access_token
  t.equal((await p.call(u, 'DELETE', '/v2/user')).status, 200)
  t.equal((await p.catalog.roles.rolesOfUser(u.id)).length, 0)
  t.equal(await p.catalog.tokens.countOfUser(u.id), 0, 'tokens are revoked')
  t.equal((await p.call(u, 'GET', '/v2/user')).status, 401)
  t.equal((await p.call(token, 'GET', '/v2/user')).status, 401)
})

t.test('companies never see each other', async (t) => {
  const p = await platform(t)
  const projA = await addProject(p, p.admin, 'A-secret')
  const roleA = (await p.call(p.admin, 'GET', '/v2/company/roles')).body[0].id
  const b = { email: 'boss@beta.test', password: 'beta-password' }
  const { company: beta } = await p.catalog.createCompanyWithAdmin('Beta', b)
  const projB = await addProject(p, b, 'B-own')
  const companyB = (await p.call(b, 'GET', '/v2/company')).body
  t.same(companyB.projects.map((x: { name: string }) => x.name), ['B-own'])
  t.same(companyB.users.map((x: { email: string }) => x.email), [b.email])
  t.equal((await p.call(b, 'GET', `/v2/project/${projA.id}`)).status, 404)
  t.equal((await p.call(b, 'PUT', `/v2/project/${projA.id}`, { name: 'pwned' })).status, 404)
  t.equal((await p.call(b, 'DELETE', `/v2/project/${projA.id}`)).status, 404)
  t.equal((await p.call(b, 'GET', `/v2/project/${projA.id}/roles`)).status, 404)
  t.equal((await p.call(b, 'GET', `/v2/company/role/${roleA}`)).status, 404)
  t.equal((await p.call(b, 'POST', `/v2/company/role/${roleA}/user/${p.admin.id}`)).status, 404)
  const ownRoleB = (await p.call(b, 'GET', '/v2/company/roles')).body[0].id
  t.equal((await p.call(b, 'POST', `/v2/company/role/${ownRoleB}/user/${p.admin.id}`)).status, 404, 'users of another company do not exist')
  t.equal((await p.call(b, 'POST', `/v2/project/${projB.id}/role/${projB.adminRoleId}/user/${p.admin.id}`)).status, 404)
  const foreign = await p.call(b, 'POST', '/v2/company/user', { company_id: p.admin.companyId, firstName: 'x', lastName: 'y', email: 'spy@beta.test', password: 'password-x' })
  t.same(foreign, { status: 404, body: { success: false, error: `Company ${p.admin.companyId} not found`, operation: 'create' } })
  t.same((await p.call(p.admin, 'GET', '/v2/user/projects')).body.map((x: { name: string }) => x.name), ['A-secret'])
  t.equal((await p.call(p.admin, 'GET', `/v2/project/${projB.id}`)).status, 404)
  t.not(beta.id, p.admin.companyId)
})
