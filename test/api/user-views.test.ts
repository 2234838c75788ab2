// Favorites and plot views (issue 33; spec 1 access rule 9; endpoints 191-198): each user's
// own, in the spec's envelope; invisible to other users; removed with their user; the grant and
// the TagAuths of each endpoint decide what a caller may add and see (a narrower TagAuth masks a
// plot view's datapoint); another company's project does not exist.
import t, { type Test } from 'tap'
import { addProject, addUser, platform, type Platform } from '../helpers/platform.ts'

async function world(t: Test) {
  const p = await platform(t)
  const pid = (await addProject(p, p.admin, 'P')).id
  const res = await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, {
    'ahu/supply': [{ time: '2024-01-01T00:00:00Z', value: 1 }], 'ahu/return': [{ time: '2024-01-01T00:00:00Z', value: 2 }], secret: [{ time: '2024-01-01T00:00:00Z', value: 3 }],
  })
  if (res.status !== 200) throw new Error(JSON.stringify(res.body))
  return { p, pid }
}

async function withRole(p: Platform, pid: number, name: string, endpoints: number[], value = '*') {
  const u = await addUser(p, name)
  const role = (await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, { name, authed_endpoints: endpoints, authed_tags: [{ key: 'dataPointID', value, read: true, write: false }] })).body.resource
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.id}/user/${u.id}`)
  return { ...u, roleId: role.id as number }
}

const VIEW = { name: 'AHU', datapoints: [{ dataPointID: 'ahu/supply', units: 'degC' }, { dataPointID: 'ahu/return' }], relative: '24h', samplerate: 'auto', aggregate: 'mean' }

t.test('favorites: add, list, remove; each user their own', async (t) => {
  const { p, pid } = await world(t)
  const a = p.admin
  t.match(await p.call(a, 'POST', `/v2/project/${pid}/favorite`, { dataPointID: 'ahu/return' }), { status: 201, body: { success: true, operation: 'create', resource: { dataPointID: 'ahu/return', created_at: /Z$/ } } })
  await p.call(a, 'POST', `/v2/project/${pid}/favorite`, { dataPointID: 'ahu/supply' })
  t.equal((await p.call(a, 'POST', `/v2/project/${pid}/favorite`, { dataPointID: 'ahu/supply' })).status, 201, 'adding again changes nothing')
  t.same((await p.call(a, 'GET', `/v2/project/${pid}/favorites`)).body.favorites.map((f: any) => f.dataPointID), ['ahu/return', 'ahu/supply'])
  t.match(await p.call(a, 'POST', `/v2/project/${pid}/favorite`, { dataPointID: 'nope' }), { status: 404, body: { error: `Datapoint 'nope' not found in project ${pid}` } })
  t.match(await p.call(a, 'POST', `/v2/project/${pid}/favorite`, { dataPointID: '' }), { status: 400, body: { error: /dataPointID/ } })
  const other = await withRole(p, pid, 'other', [191, 192, 193])
  t.same((await p.call(other, 'GET', `/v2/project/${pid}/favorites`)).body, { favorites: [] }, 'another user sees none of them')
  t.match(await p.call(other, 'DELETE', `/v2/project/${pid}/favorite?dataPointID=ahu%2Fsupply`), { status: 404, body: { error: "'ahu/supply' is not a favorite" } })
  t.match(await p.call(a, 'DELETE', `/v2/project/${pid}/favorite?dataPointID=ahu%2Fsupply`), { status: 200, body: { operation: 'delete', resource: { dataPointID: 'ahu/supply' } } })
  t.same((await p.call(a, 'GET', `/v2/project/${pid}/favorites`)).body.favorites.map((f: any) => f.dataPointID), ['ahu/return'])
})

t.test('plot views: create, read, change, delete; ranges checked; invisible to others; gone with the user', async (t) => {
  const { p, pid } = await world(t)
  const u = await withRole(p, pid, 'planner', [191, 192, 193, 194, 195, 196, 197, 198])
  const made = await p.call(u, 'POST', `/v2/project/${pid}/plotview`, VIEW)
  t.match(made, { status: 201, body: { operation: 'create', resource: { name: 'AHU', project_id: pid, datapoints: VIEW.datapoints, relative: '24h', samplerate: 'auto', aggregate: 'mean' } } })
  const id = made.body.resource.id
  t.match(await p.call(u, 'GET', `/v2/project/${pid}/plotview/${id}`), { status: 200, body: { id, name: 'AHU' } })
  const changed = await p.call(u, 'PUT', `/v2/project/${pid}/plotview/${id}`, { start: '2024-01-01T00:00:00+01:00', end: '2024-01-02T00:00:00Z', units_system: 'imperial' })
  t.match(changed, { status: 200, body: { operation: 'update', resource: { start: '2023-12-31T23:00:00Z', end: '2024-01-02T00:00:00Z', units_system: 'imperial' } } })
  t.notOk('relative' in changed.body.resource, 'a new range replaces the relative one')
  for (const [body, err] of [
    [{ ...VIEW, start: '2024-01-01T00:00:00Z' }, /either start and end, or relative/],
    [{ ...VIEW, relative: undefined }, /needs a range/],
    [{ ...VIEW, relative: undefined, start: '2024-01-02T00:00:00Z', end: '2024-01-01T00:00:00Z' }, /end must be after start/],
    [{ ...VIEW, relative: undefined, start: 'monday', end: '2024-01-01T00:00:00Z' }, /start must be an RFC 3339 timestamp/],
    [{ ...VIEW, samplerate: '5x' }, /samplerate/],
    [{ ...VIEW, aggregate: 'median' }, /aggregate/],
    [{ ...VIEW, datapoints: [] }, /datapoints/],
  ] as const) t.match(await p.call(u, 'POST', `/v2/project/${pid}/plotview`, body), { status: 400, body: { success: false, error: err } }, String(err))
  t.same((await p.call(p.admin, 'GET', `/v2/project/${pid}/plotviews`)).body, { plotviews: [] }, 'the admin sees none of the user\'s views')
  t.match(await p.call(p.admin, 'GET', `/v2/project/${pid}/plotview/${id}`), { status: 404, body: { error: `Plot view ${id} not found` } })
  t.equal((await p.call(p.admin, 'DELETE', `/v2/project/${pid}/plotview/${id}`)).status, 404, 'nor deletes it')
  t.equal((await p.call(u, 'GET', `/v2/project/${pid}/plotviews`)).body.plotviews.length, 1)
  await p.call(u, 'POST', `/v2/project/${pid}/favorite`, { dataPointID: 'ahu/supply' })
  // Deleting the user deletes its favorites and plot views (rule 9).
  t.equal((await p.call(u, 'DELETE', '/v2/user')).status, 200)
  t.same(await p.catalog.userViews.plotViews(u.id, pid), [])
  t.same(await p.catalog.userViews.favorites(u.id, pid), [])
  const second = await p.call(p.admin, 'POST', `/v2/project/${pid}/plotview`, VIEW)
  t.equal((await p.call(p.admin, 'DELETE', `/v2/project/${pid}/plotview/${second.body.resource.id}`)).body.resource.id, second.body.resource.id)
})

t.test('security: without the grant, with a narrower TagAuth, from another company', async (t) => {
  const { p, pid } = await world(t)
  const none = await withRole(p, pid, 'reader', [52])
  t.match(await p.call(none, 'GET', `/v2/project/${pid}/favorites`), { status: 403, body: { error: 'Unauthorized access to endpoint: 191 - GET /v2/project/{project_id}/favorites' } })
  t.match(await p.call(none, 'POST', `/v2/project/${pid}/plotview`, VIEW), { status: 403, body: { error: /endpoint: 195/ } })
  const narrow = await withRole(p, pid, 'narrow', [191, 192, 193, 194, 195, 196, 197, 198], 'ahu/supply')
  t.equal((await p.call(narrow, 'POST', `/v2/project/${pid}/favorite`, { dataPointID: 'secret' })).status, 404, 'a hidden datapoint answers like an unknown one')
  t.match(await p.call(narrow, 'POST', `/v2/project/${pid}/plotview`, VIEW), { status: 403, body: { error: "No read access to datapoint 'ahu/return'" } })
  const mine = await p.call(narrow, 'POST', `/v2/project/${pid}/plotview`, { ...VIEW, datapoints: [{ dataPointID: 'ahu/supply' }] })
  t.equal(mine.status, 201)
  await p.call(narrow, 'POST', `/v2/project/${pid}/favorite`, { dataPointID: 'ahu/supply' })
  // The TagAuth narrows further: the datapoint is masked in the view and left out of favorites.
  const role = (await p.call(p.admin, 'GET', `/v2/project/${pid}/role/${narrow.roleId}`)).body
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${narrow.roleId}/tagauth`, { key: 'dataPointID', value: 'ahu/return', read: true, write: false })
  await p.call(p.admin, 'DELETE', `/v2/project/${pid}/role/${narrow.roleId}/tagauth/${role.authed_tags[0].id}`)
  t.same((await p.call(narrow, 'GET', `/v2/project/${pid}/plotview/${mine.body.resource.id}`)).body.datapoints, [{ dataPointID: null, masked: true }])
  t.same((await p.call(narrow, 'GET', `/v2/project/${pid}/favorites`)).body, { favorites: [] })
  // Another company: the project does not exist for it.
  const beta = { email: 'boss@beta.test', password: 'beta-password-1' }
  await p.catalog.createCompanyWithAdmin('Beta', beta)
  for (const [method, url, body] of [['GET', `/v2/project/${pid}/favorites`], ['POST', `/v2/project/${pid}/favorite`, { dataPointID: 'ahu/supply' }],
    ['GET', `/v2/project/${pid}/plotviews`], ['GET', `/v2/project/${pid}/plotview/${mine.body.resource.id}`], ['DELETE', `/v2/project/${pid}/plotview/${mine.body.resource.id}`]] as const) {
    t.match(await p.call(beta, method, url, body), { status: 404, body: { error: `Project ${pid} not found` } }, `${method} ${url}`)
  }
})
