// hisRead and hisWrite over HTTP, driven by haystack-nclient (J2 Innovations' client, nobody
// here wrote it) in both formats, with haystack-core decoding the answers: the standard's range
// forms in the project's zone (Europe/Berlin, a DST day), raw rows in [start, end) with the
// unit, hisWrite stored through the ingest path (readable through /v2 at once), bad rows
// refused whole, a TagAuth-restricted user, a user without the grant and another company's.
import t, { type Test } from 'tap'
import type { Client } from 'haystack-nclient'
import { nclient } from '../../helpers/nclient.ts'
import { HDateTime, HGrid, HNum, HRef, ZincReader } from 'haystack-core'
import { ADMIN, livePlatform } from '../../helpers/live-platform.ts'
import { basic, type Login } from '../../helpers/platform.ts'

const B: Login = { email: 'admin@beta.test', password: 'beta-admin-pass' }

function client(address: string, pid: number, who: Login, accept: string): Client {
  return new nclient.Client({
    base: new URL(address), project: String(pid), fetch: (r: RequestInfo | URL, o?: RequestInit) => fetch(r, o),
    options: { headers: { authorization: basic(who), accept } },
    getOpUrl: ({ origin, project, op }: { origin: string; project: string; op: string }) => `${origin}/haystack/${project}/${op}`,
  } as ConstructorParameters<typeof Client>[0])
}

async function site(t: Test) {
  const live = await livePlatform(t)
  const pid = await live.project('Plant')
  t.equal((await live.http('PUT', `/v2/project/${pid}`, { time_zone: 'Europe/Berlin' })).status, 200)
  // Observations every 30 min from 2024-03-30T22:00Z (23:00 Berlin) to 2024-04-01T00:00Z, across the DST change.
  const obs = []
  for (let ms = Date.parse('2024-03-30T22:00:00Z'); ms <= Date.parse('2024-04-01T00:00:00Z'); ms += 1_800_000) obs.push({ time: new Date(ms).toISOString(), value: ms / 1e9 })
  const body = { 'ahu-1.temp': obs, 'ahu-2.temp': [{ time: '2024-03-31T10:00:00Z', value: 1 }] }
  t.equal((await live.http('POST', `/v2/project/${pid}/timeseries`, body)).status, 200)
  const dp = (id: string) => live.platform.catalog.datapoints.get(pid, id)
  await live.platform.catalog.datapoints.setTag((await dp('ahu-1.temp')).id, 'unit', '°C') // as META or PUT /v2/datapoint would
  const ref = async (id: string) => (await dp(id)).hash_id
  return { live, pid, ref, obs }
}

t.test('hisRead: the standard\'s ranges, both formats', async (t) => {
  const { live, pid, ref } = await site(t)
  const id = await ref('ahu-1.temp')
  for (const accept of ['text/zinc', 'application/vnd.haystack+json']) {
    const hs = client(live.platform.address, pid, ADMIN, accept)
    // The DST day in Berlin: 23 hours, 46 half-hours, from 2024-03-30T23:00Z.
    const day = await hs.ops.hisRead(id, '2024-03-31')
    t.equal(day.length, 46, `${accept}: a 23-hour day`)
    t.equal((day.meta.get('hisStart') as HDateTime).toZinc(), '2024-03-31T00:00:00+01:00 Berlin')
    t.equal((day.meta.get('hisEnd') as HDateTime).toZinc(), '2024-04-01T00:00:00+02:00 Berlin')
    t.equal((day.meta.get('id') as HRef).value, id)
    const first = day.first!
    t.equal((first.get('ts') as HDateTime).toZinc(), '2024-03-31T00:00:00+01:00 Berlin', 'ts in the project zone')
    t.equal((first.get('val') as HNum).value, Date.parse('2024-03-30T23:00:00Z') / 1e9)
    t.equal((first.get('val') as HNum).unit?.symbol ?? (first.get('val') as HNum).unit, '°C', 'the unit of the point')
    t.equal((day.last!.get('ts') as HDateTime).toZinc(), '2024-03-31T23:30:00+02:00 Berlin', 'the end is exclusive')
    // Two dates include the last; a date-time pair is [start, end); one date-time reads on.
    t.equal((await hs.ops.hisRead(id, '2024-03-30,2024-03-31')).length, 48, 'from 23:00 Berlin on the 30th (2 rows) to the end of the 31st (46)')
    t.equal((await hs.ops.hisRead(id, '2024-03-31T01:00:00+01:00 Berlin,2024-03-31T04:00:00+02:00 Berlin')).length, 2 * 2, '01:00 CET to 04:00 CEST is two hours')
    t.equal((await hs.ops.hisRead(id, [HDateTime.make('2024-03-31T23:00:00+02:00 Berlin'), HDateTime.make('2024-04-01T02:00:00+02:00 Berlin')])).length, 6, 'haystack-core\'s own date-time pair: 21:00Z to 00:00Z')
    const on = await hs.ops.hisRead(id, '2024-03-31T23:00:00+02:00 Berlin')
    t.same(on.getRows().map((r) => (r.get('ts') as HDateTime).toZinc()), ['2024-03-31T23:00:00+02:00 Berlin', '2024-03-31T23:30:00+02:00 Berlin', '2024-04-01T00:00:00+02:00 Berlin',
      '2024-04-01T00:30:00+02:00 Berlin', '2024-04-01T01:00:00+02:00 Berlin', '2024-04-01T01:30:00+02:00 Berlin', '2024-04-01T02:00:00+02:00 Berlin'], 'one date-time: everything from it on, to the last observation')
    t.equal((await hs.ops.hisRead(id, 'today')).length, 0, 'nothing today')
    t.equal((await hs.ops.hisRead(id, 'yesterday')).length, 0)
    await t.rejects(hs.ops.hisRead(id, 'last week'), /hisRead range 'last week' is not one the standard defines/)
    await t.rejects(hs.ops.hisRead('nothing1', '2024-03-31'), /Unknown id: @nothing1/)
  }
  // GET with query parameters (read-only op): the date comes Zinc-encoded.
  const res = await fetch(`${live.platform.address}/haystack/${pid}/hisRead?id=@${id}&range=2024-03-31`, { headers: { authorization: basic(ADMIN), accept: 'text/zinc' } })
  t.equal(res.status, 200)
  t.equal((new ZincReader(await res.text()).readValue() as HGrid).length, 46)
})

t.test('hisWrite: stored through the ingest path, durable before the answer; bad rows store nothing', async (t) => {
  const { live, pid, ref } = await site(t)
  const id = await ref('ahu-1.temp')
  const hs = client(live.platform.address, pid, ADMIN, 'application/vnd.haystack+json')
  const rows = [
    { ts: HDateTime.make('2024-05-01T10:00:00+02:00 Berlin'), val: HNum.make(21.5, '°C') },
    { ts: HDateTime.make('2024-05-01T08:15:00Z UTC'), val: HNum.make(22) },
  ]
  const answer = await hs.ops.hisWrite(id, rows.map((r) => ({ ts: r.ts.toJSON(), val: r.val.toJSON() })))
  t.equal(answer.length, 0, 'an empty grid')
  const stored = await live.read(pid, 'ahu-1.temp', '&start=2024-05-01T00:00:00Z&end=2024-05-02T00:00:00Z')
  t.same(stored.data, [{ time: '2024-05-01T08:00:00Z', value: 21.5 }, { time: '2024-05-01T08:15:00Z', value: 22 }], 'readable through /v2 at once')
  const back = await hs.ops.hisRead(id, '2024-05-01')
  t.same(back.getRows().map((r) => (r.get('val') as HNum).value), [21.5, 22])

  const bad = async (rows: object[], msg: RegExp, what: string) => {
    const zinc = `ver:"3.0" id:@${id}\nts,val\n` + rows.map((r) => Object.values(r).join(',')).join('\n') + '\n'
    const res = await fetch(`${live.platform.address}/haystack/${pid}/hisWrite`, { method: 'POST', headers: { authorization: basic(ADMIN), 'content-type': 'text/zinc', accept: 'text/zinc' }, body: zinc })
    const grid = new ZincReader(await res.text()).readValue() as HGrid
    t.ok(grid.isError(), `${what}: an error grid`)
    t.match(grid.meta.get('dis')?.toString() ?? '', msg, what)
  }
  await bad([{ ts: '2024-06-01T00:00:00Z UTC', val: '1' }, { ts: '2024-06-01T01:00:00Z UTC', val: '"warm"' }], /hisWrite row 1: val must be a Number or a Bool, got "warm"/, 'a Str value')
  await bad([{ ts: '2024-06-01', val: '1' }], /hisWrite row 0: ts must be a DateTime, got 2024-06-01/, 'a Date')
  await bad([{ ts: '2024-06-01T00:00:00Z UTC', val: '1kW' }], /val is in kW, the point is in °C/, 'another unit')
  await bad([{ ts: '2024-06-01T00:00:00Z UTC', val: 'INF' }], /only finite numbers/, 'INF')
  t.same((await live.read(pid, 'ahu-1.temp', '&start=2024-06-01T00:00:00Z&end=2024-06-02T00:00:00Z')).data, [], 'nothing of the refused requests was stored')
  await t.rejects(hs.ops.hisWrite('nothing1', [{ ts: rows[0].ts.toJSON(), val: 1 }]), /Unknown id: @nothing1/)
})

t.test('a TagAuth-restricted user, a user without the grant, another company', async (t) => {
  const { live, pid, ref } = await site(t)
  const [one, two] = [await ref('ahu-1.temp'), await ref('ahu-2.temp')]
  const company = (await live.http('GET', '/v2/company')).body
  const user = async (name: string, role: object) => {
    const login = { email: `${name}@live.test`, password: `${name}-password` }
    const u = await live.http('POST', '/v2/company/user', { company_id: company.company.id, firstName: name, lastName: 'T', ...login })
    const r = await live.http('POST', `/v2/project/${pid}/role`, { name: `${name}-role`, ...role })
    await live.http('POST', `/v2/project/${pid}/role/${r.body.resource.id}/user/${u.body.resource.id}`)
    return login
  }
  // Reads ahu-2 only; writes nothing.
  const narrow = await user('narrow', { authed_endpoints: [236, 237], authed_tags: [{ key: 'dataPointID', value: 'ahu-2.temp', read: true, write: false }] })
  const hs = client(live.platform.address, pid, narrow, 'text/zinc')
  t.equal((await hs.ops.hisRead(two, '2024-03-31')).length, 1, 'inside the TagAuth')
  await t.rejects(hs.ops.hisRead(one, '2024-03-31'), /Unknown id: @/, 'outside: as if it did not exist')
  await t.rejects(hs.ops.hisWrite(one, [{ ts: HDateTime.make('2024-06-01T00:00:00Z UTC').toJSON(), val: 1 }]), /Unknown id: @/)
  await t.rejects(hs.ops.hisWrite(two, [{ ts: HDateTime.make('2024-06-01T00:00:00Z UTC').toJSON(), val: 1 }]), /No write access to datapoint 'ahu-2.temp'/, 'readable, not writable')
  t.same((await live.read(pid, 'ahu-2.temp', '&start=2024-06-01T00:00:00Z')).data, [])

  const none = await user('none', { authed_endpoints: [234] })
  const r = await fetch(`${live.platform.address}/haystack/${pid}/hisRead?id=@${one}&range=today`, { headers: { authorization: basic(none), accept: 'text/zinc' } })
  t.equal(r.status, 403)
  const g = new ZincReader(await r.text()).readValue() as HGrid
  t.equal(g.meta.get('dis')?.toString(), 'Unauthorized access to endpoint: 236 - POST /haystack/{project_id}/hisRead')

  await live.platform.catalog.createCompanyWithAdmin('Beta', B)
  const other = client(live.platform.address, pid, B, 'application/vnd.haystack+json')
  await t.rejects(other.ops.hisRead(one, '2024-03-31'), 'another company reads nothing')
  const o = await fetch(`${live.platform.address}/haystack/${pid}/hisWrite`, { method: 'POST', headers: { authorization: basic(B), 'content-type': 'text/zinc' }, body: `ver:"3.0" id:@${one}\nts,val\n2024-06-01T00:00:00Z UTC,1\n` })
  t.ok(o.status === 403 || o.status === 404, `another company: ${o.status}`)
  t.same((await live.read(pid, 'ahu-1.temp', '&start=2024-06-01T00:00:00Z')).data, [], 'nothing stored')
})
