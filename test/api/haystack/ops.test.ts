// The Haystack API (issue 35) driven by haystack-nclient (J2 Innovations) as the client and
// haystack-core as the decoder: about, ops, formats, close, read (filter, limit, ids), nav, in
// Zinc and in JSON; error grids; a TagAuth-restricted user; a user without the grant; another
// company's user.
import t from 'tap'
import { HGrid, ZincReader, type HDict, type HRef } from 'haystack-core'
import { haystackClient, haystackWorld, roleUser, type HaystackWorld } from '../../helpers/haystack.ts'
import { basic } from '../../helpers/platform.ts'

const JSON_ACCEPT = 'application/vnd.haystack+json'
const idOf = (d: HDict): string => (d.get('id') as HRef | undefined)?.value ?? ''
const dpIds = (g: HGrid): string[] => g.getRows().map((d) => String(d.get('dataPointID') ?? idOf(d))).sort()

async function raw(w: HaystackWorld, method: string, op: string, opts: { who?: Parameters<typeof basic>[0] | null; accept?: string; type?: string; body?: string; query?: string; pid?: number } = {}) {
  const headers: Record<string, string> = {}
  if (opts.who !== null) headers.authorization = basic(opts.who ?? w.p.admin)
  if (opts.accept) headers.accept = opts.accept
  if (opts.type) headers['content-type'] = opts.type
  const res = await fetch(`${w.base}/haystack/${opts.pid ?? w.pid}/${op}${opts.query ?? ''}`, { method, headers, body: opts.body })
  const text = await res.text()
  const type = res.headers.get('content-type') ?? ''
  const grid = type.startsWith('text/zinc') ? ZincReader.readValue(text) as HGrid : HGrid.make(JSON.parse(text))
  return { status: res.status, type, grid, text }
}

t.test('about, ops, formats, close through haystack-nclient, in Zinc and JSON', async (t) => {
  const w = await haystackWorld(t)
  for (const accept of [undefined, JSON_ACCEPT]) {
    const c = haystackClient(w, w.p.admin, accept)
    const about = (await c.ops.about()).getRows()[0]
    t.equal(about.get('haystackVersion')?.toString(), '4.0')
    t.equal(about.get('tz')?.toString(), 'Berlin', 'the project\'s time zone')
    t.equal(about.get('serverName')?.toString(), 'HQ')
    t.equal(about.get('productName')?.toString(), 'Lintel')
    t.match(about.get('serverTime')?.toZinc(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+0[12]:00 Berlin$/)
    const ops = (await c.ops.ops()).getRows().map((d) => d.get('name')?.toString())
    t.same(ops, ['about', 'ops', 'formats', 'close', 'read', 'nav', 'hisRead', 'hisWrite', 'pointWrite', 'watchSub', 'watchPoll', 'watchUnsub'])
    const formats = (await c.ops.formats()).getRows().map((d) => d.get('mime')?.toString())
    t.same(formats, ['text/zinc', 'application/json', JSON_ACCEPT])
    t.equal((await c.ops.invokeOp('close')).length, 0, 'close answers an empty grid')
  }
  const z = await raw(w, 'GET', 'about', { accept: 'text/zinc' })
  t.match(z, { status: 200, type: 'text/zinc; charset=utf-8', text: /^ver:"3.0"\n/ })
  const j = await raw(w, 'GET', 'about', {})
  t.match(j, { status: 200, type: 'application/json; charset=utf-8' }, 'no Accept: JSON')
  t.equal(JSON.parse(j.text)._kind, 'grid')
})

t.test('read: filters, limit, ids; the model of points, equips and the site', async (t) => {
  const w = await haystackWorld(t)
  for (const accept of [undefined, JSON_ACCEPT]) {
    const c = haystackClient(w, w.p.admin, accept)
    t.same(dpIds(await c.ops.read('point')), ['ahu1/return', 'ahu1/supply', 'loose/flag', 'meter/power'])
    const supply = (await c.ops.read('point and dataPointID == "ahu1/supply"')).getRows()[0]
    t.equal(idOf(supply), w.ids.get('ahu1/supply'), 'a point\'s id is its hash id')
    t.equal(supply.get('dis')?.toString(), 'AHU 1 supply', 'dis from the dis tag')
    t.equal(supply.get('kind')?.toString(), 'Number')
    t.equal(supply.get('unit')?.toString(), '°C')
    t.equal(supply.get('tz')?.toString(), 'Berlin')
    for (const m of ['point', 'his', 'cur', 'writable', 'temp', 'sensor']) t.ok(supply.has(m) && supply.get(m)?.toZinc() === 'M', `${m} is a marker`)
    t.equal(supply.get('zone')?.toString(), 'north', 'a tag with a value is a Str')
    t.equal(supply.get('minVal')?.toZinc(), '12')
    t.equal(supply.get('maxVal')?.toZinc(), '24')
    t.equal((supply.get('equipRef') as HRef).value, `equip:${w.equipId}`)
    t.equal((supply.get('siteRef') as HRef).value, `site:${w.pid}`)
    t.notOk((await c.ops.read('point and dataPointID == "meter/power"')).getRows()[0].has('Bad Name'), 'a key that is no Haystack name is left out')
    t.notOk((await c.ops.read('point and dataPointID == "meter/power"')).getRows()[0].has('writable'), 'no bounds: not writable')
    t.same(dpIds(await c.ops.read('point and equipRef->ahu')), ['ahu1/return', 'ahu1/supply'], 'path to the equip')
    t.same(dpIds(await c.ops.read('point and equipRef->siteRef->tz == "Berlin" and zone == "north"')), ['ahu1/supply'], 'path through the equip to the site')
    t.same(dpIds(await c.ops.read('point and not equipRef')), ['loose/flag', 'meter/power'])
    t.same(dpIds(await c.ops.read('unit == "°C" or elec')), ['ahu1/return', 'ahu1/supply', 'meter/power'])
    t.equal((await c.ops.read('point', 2)).length, 2, 'limit')
    const site = (await c.ops.read('site')).getRows()
    t.equal(site.length, 1)
    t.match(site[0].toJSON(), { dis: 'HQ', tz: 'Berlin', doc: 'Head quarters', site: { _kind: 'marker' } })
    const equip = (await c.ops.read('equip')).getRows()
    t.match(equip.map((e) => e.toJSON()), [{ dis: 'AHU 1', ahu: { _kind: 'marker' }, hvac: { _kind: 'marker' }, floor: '2', siteRef: { val: `site:${w.pid}` } }])
    const byIds = await c.ops.read([w.ids.get('meter/power')!, 'nope', `site:${w.pid}`])
    t.same(byIds.getRows().map(idOf), [w.ids.get('meter/power'), '', `site:${w.pid}`], 'by ids, in order; an unknown id is a row of nulls')
    await t.rejects(c.ops.read('point and'), { message: /Invalid filter at character 10/ }, 'a bad filter: error grid')
  }
  const viaGet = await raw(w, 'GET', 'read', { accept: 'text/zinc', query: `?filter=${encodeURIComponent('"point and elec"')}` })
  t.same(dpIds(viaGet.grid), ['meter/power'], 'GET with the filter as a Zinc Str')
  const plainStr = await raw(w, 'GET', 'read', { query: '?filter=elec&limit=5' })
  t.same(dpIds(plainStr.grid), ['meter/power'], 'GET: a parameter that is no Zinc value is a Str')
  const json = await raw(w, 'POST', 'read', { type: 'application/json', body: JSON.stringify({ _kind: 'grid', meta: { ver: '3.0' }, cols: [{ name: 'filter' }], rows: [{ filter: 'point and temp' }] }) })
  t.same(dpIds(json.grid), ['ahu1/return', 'ahu1/supply'], 'a JSON request grid')
  const noArg = await raw(w, 'POST', 'read', { type: 'text/zinc', body: 'ver:"3.0"\nx\n1\n' })
  t.match(noArg, { status: 200, text: /read needs a filter/ })
})

t.test('nav: site, its equips and loose points, an equip\'s points', async (t) => {
  const w = await haystackWorld(t)
  const c = haystackClient(w, w.p.admin)
  const top = (await c.ops.nav()).getRows()
  t.same(top.map(idOf), [`site:${w.pid}`])
  t.equal((top[0].get('navId') as HRef).value, `site:${w.pid}`)
  const level = (await c.ops.nav(top[0].get('navId') as HRef)).getRows()
  t.same(level.map((d) => d.get('dis')?.toString()), ['AHU 1', 'meter/power', 'loose/flag'], 'equips, then points in no equip')
  t.ok(level[0].has('navId') && !level[1].has('navId'), 'only what has children has a navId')
  t.same(dpIds(await c.ops.nav(level[0].get('navId') as HRef)), ['ahu1/return', 'ahu1/supply'])
  t.equal((await c.ops.nav(w.ids.get('meter/power'))).length, 0, 'a point has no children')
  await t.rejects(c.ops.nav('nope'), { message: 'nav: unknown navId @nope' })
})

t.test('a TagAuth-restricted user: what it cannot read does not exist, in every op', async (t) => {
  const w = await haystackWorld(t)
  const north = await roleUser(w, 'north', [230, 231, 232, 233, 234, 235], [{ key: 'zone', value: 'north' }])
  for (const accept of [undefined, JSON_ACCEPT]) {
    const c = haystackClient(w, north, accept)
    t.same(dpIds(await c.ops.read('point')), ['ahu1/supply', 'loose/flag', 'meter/power'])
    t.same(dpIds(await c.ops.read('temp')), ['ahu1/supply'])
    t.same((await c.ops.read([w.ids.get('ahu1/return')!, w.ids.get('ahu1/supply')!])).getRows().map(idOf), ['', w.ids.get('ahu1/supply')], 'by id: as unknown')
    const equipNav = (await c.ops.nav(`site:${w.pid}`)).getRows()[0]
    t.same(dpIds(await c.ops.nav(equipNav.get('navId') as HRef)), ['ahu1/supply'])
    await t.rejects(c.ops.nav(w.ids.get('ahu1/return')), { message: /unknown navId/ })
  }
})

t.test('refusals: error grids with the platform\'s status', async (t) => {
  const w = await haystackWorld(t)
  const aboutOnly = await roleUser(w, 'aboutonly', [230], [{ key: 'dataPointID', value: '*' }])
  await t.resolves(haystackClient(w, aboutOnly).ops.about())
  const denied = await raw(w, 'POST', 'read', { who: aboutOnly, accept: 'text/zinc', type: 'text/zinc', body: 'ver:"3.0"\nfilter\n"point"\n' })
  t.equal(denied.status, 403)
  t.same(denied.grid.getError(), { type: '', trace: 'ENDPOINT_NOT_GRANTED', dis: 'Unauthorized access to endpoint: 234 - POST /haystack/{project_id}/read' })
  await t.rejects(haystackClient(w, aboutOnly).ops.read('point'), { message: /Unauthorized access to endpoint: 234/ }, 'nclient sees the error grid')

  const other = { email: 'boss@other.test', password: 'other-pass-1' }
  await w.p.catalog.createCompanyWithAdmin('Other', other)
  const foreign = await raw(w, 'GET', 'read', { who: other, query: '?filter=point' })
  t.equal(foreign.status, 404, 'another company\'s project does not exist')
  t.match(foreign.grid.getError(), { dis: `Project ${w.pid} not found` })

  const anon = await raw(w, 'GET', 'about', { who: null, accept: 'text/zinc' })
  t.match(anon, { status: 401, text: /^ver:"3.0" err dis:"Authentication required/ })
  const wrong = await raw(w, 'GET', 'about', { who: { email: w.p.admin.email, password: 'wrong-password' } })
  t.equal(wrong.status, 401)

  t.match(await raw(w, 'GET', 'close'), { status: 405, text: /has side effects: call it with POST/ })
  t.match(await raw(w, 'GET', 'nope'), { status: 404, text: /Unknown op 'nope'/ })
  const notAcceptable = await fetch(`${w.base}/haystack/${w.pid}/about`, { headers: { authorization: basic(w.p.admin), accept: 'text/html' } })
  t.equal(notAcceptable.status, 406)
  t.match(await notAcceptable.text(), /None of the types in Accept is served/)
  t.match(await raw(w, 'POST', 'read', { type: 'text/csv', body: 'a,b' }), { status: 415, text: /text\/csv/ })
  t.match(await raw(w, 'POST', 'read', { type: 'text/zinc', body: 'ver:"3.0"\nfilter\n"open\n' }), { status: 400, text: /Invalid request grid: Invalid Zinc at line 3/ })
  t.match(await raw(w, 'POST', 'read', { type: 'application/json', body: '{"_kind":"grid","rows":[{"filter":{"_kind":"teapot"}}]}' }), { status: 400, text: /unknown _kind/ })
  t.match(await raw(w, 'POST', 'read', { type: 'application/json', body: '{' }), { status: 400, text: /Malformed JSON/ })
  t.match(await raw(w, 'GET', 'about', { pid: 0 }), { status: 400 })
})
