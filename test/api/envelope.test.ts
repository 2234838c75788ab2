// Response envelope and bad input (issue 2 items 6 and 10): every failure is a failure
// envelope with the right status, never a 500 and never a partial write.
import t from 'tap'
import { addProject, platform } from '../helpers/platform.ts'

t.test('GET returns the object itself; create/update/delete return the envelope', async (t) => {
  const p = await platform(t)
  const company = await p.call(p.admin, 'GET', '/v2/company')
  t.equal(company.status, 200)
  t.same(Object.keys(company.body).sort(), ['company', 'projects', 'users'])
  t.same(company.body.company, { id: p.admin.companyId, name: 'Acme', description: '' })
  t.notOk('success' in company.body)

  const created = await p.call(p.admin, 'POST', '/v2/company/project', { name: 'HQ', description: 'Head office' })
  t.equal(created.status, 201)
  t.equal(created.body.success, true)
  t.equal(created.body.operation, 'create')
  t.match(created.body.resource.project, { name: 'HQ', description: 'Head office', company_id: p.admin.companyId })
  t.match(created.body.resource.role, { name: 'admin', project_id: created.body.resource.project.id })
  const id = created.body.resource.project.id

  const viaAlias = await p.call(p.admin, 'POST', '/v2/project', { name: 'Annex' })
  t.equal(viaAlias.status, 201, 'POST /v2/project is the same operation')

  const got = await p.call(p.admin, 'GET', `/v2/project/${id}`)
  t.same(got.body, {
    project: { id, company_id: p.admin.companyId, name: 'HQ', description: 'Head office', load_balancing_group: 'lintel', project_handle: `p${id}`, hash_id_length: 8, sampling_n: 200, time_zone: 'UTC' },
    datapoints: [],
    meta: { current_page: 1, items_per_page: 1000, total_items: 0, total_pages: 0 },
    devices: [],
  }, 'a new project has no datapoints; its MQTT prefix and settings are shown')

  const upd = await p.call(p.admin, 'PUT', `/v2/project/${id}`, { name: 'HQ 2' })
  t.same(upd.body, { success: true, operation: 'update', resource: { id, company_id: p.admin.companyId, name: 'HQ 2', description: 'Head office', time_zone: 'UTC' } })
  const empty = await p.call(p.admin, 'PUT', `/v2/project/${id}`)
  t.equal(empty.status, 200, 'an empty body is accepted')
  t.equal(empty.body.resource.name, 'HQ 2')

  const del = await p.call(p.admin, 'DELETE', `/v2/project/${id}`)
  t.same(del.body, { success: true, operation: 'delete', resource: { id, company_id: p.admin.companyId, name: 'HQ 2', description: 'Head office' } })
  const gone = await p.call(p.admin, 'GET', `/v2/project/${id}`)
  t.same(gone, { status: 404, body: { success: false, error: `Project ${id} not found`, operation: '' } })
})

t.test('bad input answers a failure envelope with the right status', async (t) => {
  const p = await platform(t)
  const raw = (payload: string, contentType = 'application/json') => p.app.inject({
    method: 'POST', url: '/v2/company/project', payload,
    headers: { 'content-type': contentType, authorization: 'Basic ' + Buffer.from(`${p.admin.email}:${p.admin.password}`).toString('base64') },
  })

  let res = await raw('{"name": "x",')
  t.equal(res.statusCode, 400)
  t.match(res.json(), { success: false, operation: 'create', error: /^Malformed JSON body/ })

  res = await raw('{"name": "x", "__proto__": {"admin": true}}')
  t.equal(res.statusCode, 400, 'prototype poisoning is refused')

  res = await raw('name=x', 'text/plain')
  t.equal(res.statusCode, 415)
  t.equal(res.json().success, false)

  const wrongType = await p.call(p.admin, 'POST', '/v2/company/project', { name: 42 })
  t.equal(wrongType.status, 400)
  t.equal(wrongType.body.error, 'Invalid input: body/name must be string', 'no silent coercion of a number into a name')

  const missing = await p.call(p.admin, 'POST', '/v2/company/project', {})
  t.equal(missing.status, 400)
  t.match(missing.body.error, /must have required property 'name'/)

  const unknownField = await p.call(p.admin, 'POST', '/v2/company/project', { name: 'x', colour: 'red' })
  t.equal(unknownField.status, 400)
  t.match(unknownField.body.error, /must NOT have additional properties/)

  const long = await p.call(p.admin, 'POST', '/v2/company/project', { name: 'x'.repeat(201) })
  t.equal(long.status, 400)
  t.match(long.body.error, /must NOT have more than 200 characters/)

  const huge = await p.call(p.admin, 'POST', '/v2/company/project', { name: 'x', description: 'y'.repeat(2 * 1024 * 1024) })
  t.same(huge, { status: 413, body: { success: false, error: 'Request body is too large', operation: 'create' } })

  const badId = await p.call(p.admin, 'GET', '/v2/project/abc')
  t.equal(badId.status, 400)
  t.equal(badId.body.error, "project_id must be a positive integer, got 'abc'")

  const unknownId = await p.call(p.admin, 'PUT', '/v2/project/999', { name: 'x' })
  t.same(unknownId, { status: 404, body: { success: false, error: 'Project 999 not found', operation: 'update' } })

  const unknownRoute = await p.call(p.admin, 'GET', '/v2/nothing?x=1')
  t.same(unknownRoute, { status: 404, body: { success: false, error: 'Route not found: GET /v2/nothing', operation: '' } })

  const roleBad = await p.call(p.admin, 'POST', '/v2/company/role', { name: 'r', authed_endpoints: ['10'] })
  t.equal(roleBad.status, 400)

  const company = await p.call(p.admin, 'GET', '/v2/company')
  t.equal(company.body.projects.length, 0, 'no failed request wrote anything')
})

t.test('duplicates answer 409 and write nothing', async (t) => {
  const p = await platform(t)
  const body = { company_id: p.admin.companyId, firstName: 'A', lastName: 'B', email: 'dup@acme.test', password: 'password-1' }
  t.equal((await p.call(p.admin, 'POST', '/v2/company/user', body)).status, 201)
  const again = await p.call(p.admin, 'POST', '/v2/company/user', { ...body, email: 'DUP@acme.test' })
  t.same(again, { status: 409, body: { success: false, error: "A user with email 'DUP@acme.test' already exists", operation: 'create' } })
  const taken = await p.call(p.admin, 'PUT', '/v2/user', { email: 'dup@acme.test', current_password: p.admin.password })
  t.equal(taken.status, 409)

  await p.call(p.admin, 'POST', '/v2/company/role', { name: 'viewer' })
  const role = await p.call(p.admin, 'POST', '/v2/company/role', { name: 'viewer' })
  t.equal(role.status, 409)
  const { id } = await addProject(p, p.admin, 'P')
  const projRole = await p.call(p.admin, 'POST', `/v2/project/${id}/role`, { name: 'admin' })
  t.equal(projRole.status, 409, 'the admin name is taken in every project')
})

t.test('passwords never appear in any response', async (t) => {
  const p = await platform(t)
  const created = await p.call(p.admin, 'POST', '/v2/company/user', {
    company_id: p.admin.companyId, firstName: 'A', lastName: 'B', email: 'u@acme.test', password: 'secret-password',
  })
  t.same(Object.keys(created.body.resource).sort(), ['company_id', 'email', 'firstName', 'id', 'lastName'])
  for (const [method, url] of [['GET', '/v2/user'], ['GET', '/v2/company']] as const) {
    const res = await p.call(p.admin, method, url)
    t.notMatch(JSON.stringify(res.body), /password|scrypt/, `${method} ${url}`)
  }
  const upd = await p.call(p.admin, 'PUT', '/v2/user', { password: 'another-password', current_password: p.admin.password })
  t.equal(upd.status, 200)
  t.notMatch(JSON.stringify(upd.body), /password|scrypt/)
})
