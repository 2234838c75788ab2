// pointWrite and the watch ops over HTTP, driven by haystack-nclient against a live platform
// with an edge agent (simulated BACnet driver): a Haystack write reaches the device's priority
// array through the setpoint safeguards, the 17-row array shows what the edge confirmed, a
// release and a timed level-8 write; watches answer current values, changes once per poll,
// refresh, unsub and close; a TagAuth-restricted user, one without the grant, another company.
import t, { type Test } from 'tap'
import type { Client } from 'haystack-nclient'
import { HDict, HGrid, HMarker, HNum, HRef, ZincReader, type HStr } from 'haystack-core'
import { nclient } from '../../helpers/nclient.ts'
import { ADMIN } from '../../helpers/live-platform.ts'
import { basic, type Login } from '../../helpers/platform.ts'
import { setpointSite } from '../../helpers/setpoint-site.ts'
import { waitFor } from '../../helpers/wait.ts'

const B: Login = { email: 'admin@beta.test', password: 'beta-admin-pass' }
const JSON_MIME = 'application/vnd.haystack+json'

function client(address: string, pid: number, who: Login, accept = 'text/zinc'): Client {
  return new nclient.Client({
    base: new URL(address), project: String(pid), fetch: (r: RequestInfo | URL, o?: RequestInit) => fetch(r, o),
    options: { headers: { authorization: basic(who), accept } },
    getOpUrl: ({ origin, project, op }: { origin: string; project: string; op: string }) => `${origin}/haystack/${project}/${op}`,
  } as ConstructorParameters<typeof Client>[0])
}

async function setup(t: Test) {
  const site = await setpointSite(t, { LINTEL_SETPOINT_TIMEOUT_MS: '60000' })
  const { catalog } = site.platform
  t.equal((await site.http('POST', `/v2/project/${site.pid}/timeseries`, { 'ahu-1.sp': [{ time: '2024-01-01T00:00:00Z', value: 19 }], plain: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })).status, 200)
  const ref = async (id: string) => (await catalog.datapoints.get(site.pid, id)).hash_id
  await catalog.datapoints.setTag((await catalog.datapoints.get(site.pid, 'ahu-1.sp')).id, 'unit', '°C') // as META or PUT /v2/datapoint would
  const user = async (name: string, role: object): Promise<Login> => {
    const company = (await site.http('GET', '/v2/company')).body
    const login = { email: `${name}@live.test`, password: `${name}-password` }
    const u = await site.http('POST', '/v2/company/user', { company_id: company.company.id, firstName: name, lastName: 'T', ...login })
    const r = await site.http('POST', `/v2/project/${site.pid}/role`, { name: `${name}-role`, ...role })
    await site.http('POST', `/v2/project/${site.pid}/role/${r.body.resource.id}/user/${u.body.resource.id}`)
    return login
  }
  return { site, one: await ref('ahu-1.sp'), two: await ref('ahu-2.sp'), plain: await ref('plain'), user, hs: client(site.platform.address, site.pid, ADMIN) }
}

const level = (g: HGrid, n: number) => g.getRows()[n - 1].toJSON() as Record<string, unknown>

t.test('pointWrite reaches the edge; the array shows what it confirmed', async (t) => {
  const { site, one, plain, hs } = await setup(t)
  const device = () => site.driver.read('ahu-1.sp').priorityArray
  const empty = await hs.ops.pointRead(one)
  t.equal(empty.length, 17)
  t.same(empty.getRows().map((r) => (r.get('level') as HNum).value), Array.from({ length: 17 }, (_, i) => i + 1))
  t.same(level(empty, 17), { level: 17, levelDis: 'default' }, 'the default: known to the device only (nulls left out)')

  const answer = await hs.ops.pointWrite({ id: one, level: 8, val: HNum.make(21), who: 'Ann' })
  t.equal(answer.length, 17, 'the answer is the array')
  await waitFor(() => device()[7] === 21, { what: 'the edge device to hold 21 at level 8', timeoutMs: 15_000 })
  const written = await waitFor(async () => { const g = await hs.ops.pointRead(one); return level(g, 8).status === 'written' ? g : undefined }, { what: 'the edge to confirm', timeoutMs: 15_000 })
  t.same(level(written, 8), { level: 8, levelDis: 'manual', val: { _kind: 'number', val: 21, unit: '°C' }, who: 'admin@live.test (who: Ann)', status: 'written' })
  const audit = (await site.http('GET', `/v2/datapoint/setpoints?project_id=${site.pid}&dataPointID=ahu-1.sp`)).body
  t.match(audit.operations[0], { requested_by: 'admin@live.test (who: Ann)', priority: 8, value: 21, acked: true, status: 'written' }, 'the setpoint log has it')

  // JSON: the same array.
  const json = await client(site.platform.address, site.pid, ADMIN, JSON_MIME).ops.pointRead(one)
  t.same(level(json, 8), level(written, 8))

  // No val: the level is released.
  await hs.ops.pointWrite({ id: one, level: 8, who: 'Ann' })
  await waitFor(() => device()[7] === null, { what: 'the release to reach the device', timeoutMs: 15_000 })

  // A duration releases level 8 when it ends.
  await hs.ops.pointWrite({ id: one, level: 8, val: HNum.make(22), duration: HNum.make(1, 's') })
  await waitFor(() => device()[7] === 22, { what: 'the timed write', timeoutMs: 15_000 })
  await waitFor(() => device()[7] === null, { what: 'the release after 1 s', timeoutMs: 15_000 })
  const ops = (await site.http('GET', `/v2/datapoint/setpoints?project_id=${site.pid}&dataPointID=ahu-1.sp`)).body.operations
  t.match(ops[0], { value: null, priority: 8, requested_by: 'admin@live.test, duration ended' })

  // The safeguards, as error grids with their texts.
  await t.rejects(hs.ops.pointWrite({ id: one, level: 17, val: HNum.make(20) }), /level 17 \(the default of the device\) is not writable/)
  await t.rejects(hs.ops.pointWrite({ id: one, level: 3, val: HNum.make(20) }), /priority 3 is more urgent than 8, the most urgent priority allowed/)
  await t.rejects(hs.ops.pointWrite({ id: one, level: 8, val: HNum.make(99) }), /Setpoint value 99 for datapoint 'ahu-1.sp' is outside its write bounds \[15,30\]/)
  await t.rejects(hs.ops.pointWrite({ id: one, level: 9, val: HNum.make(20), duration: HNum.make(5, 'min') }), /a duration applies to level 8 \(manual\) only/)
  await t.rejects(hs.ops.pointWrite({ id: one, level: 8, val: HNum.make(20, 'kW') }), /no conversion on write/)
  await t.rejects(hs.ops.pointWrite({ id: plain, level: 8, val: HNum.make(20) }), /datapoint 'plain': it is not writable/)
  await t.rejects(hs.ops.pointWrite({ id: 'nothing1', level: 8, val: HNum.make(20) }), /Unknown id: @nothing1/)
  t.equal(device()[7], null, 'none of them reached the device')
})

t.test('pointWrite: a TagAuth-restricted user, no grant, another company', async (t) => {
  const { site, one, two, user } = await setup(t)
  const narrow = await user('narrow', { authed_endpoints: [238], authed_tags: [{ key: 'dataPointID', value: 'ahu-2.sp', read: true, write: false }] })
  const hs = client(site.platform.address, site.pid, narrow)
  t.equal((await hs.ops.pointRead(two)).length, 17, 'reads the array of its point')
  await t.rejects(hs.ops.pointRead(one), /Unknown id: @/, 'the other point does not exist for it')
  await t.rejects(hs.ops.pointWrite({ id: one, level: 8, val: HNum.make(20) }), /Unknown id: @/)
  await t.rejects(hs.ops.pointWrite({ id: two, level: 8, val: HNum.make(20) }), new RegExp(`no write access to the point @${two}`))
  const none = await user('none', { authed_endpoints: [234] })
  const r = await fetch(`${site.platform.address}/haystack/${site.pid}/pointWrite`, { method: 'POST', headers: { authorization: basic(none), 'content-type': 'text/zinc', accept: 'text/zinc' }, body: `ver:"3.0"\nid,level,val\n@${one},8,20\n` })
  t.equal(r.status, 403)
  t.equal(((new ZincReader(await r.text()).readValue() as HGrid).meta.get('dis') as HStr).value, 'Unauthorized access to endpoint: 238 - POST /haystack/{project_id}/pointWrite')
  await site.platform.catalog.createCompanyWithAdmin('Beta', B)
  await t.rejects(client(site.platform.address, site.pid, B).ops.pointWrite({ id: one, level: 8, val: HNum.make(20) }), 'another company writes nothing')
  t.same(site.driver.read('ahu-1.sp').priorityArray[7], null)
  t.same(site.driver.read('ahu-2.sp').priorityArray[7], null)
})

t.test('watches: current values, changes once, refresh, unsub, close, lease', async (t) => {
  const { site, one, two, user, hs } = await setup(t)
  const sub = (meta: Record<string, unknown>, ids: string[], c = hs) => c.ops.invokeOp('watchSub', HGrid.make({ meta: HDict.make(meta as never), rows: ids.map((id) => HDict.make({ id: HRef.make(id) })) }))
  const poll = (watchId: string, refresh = false, c = hs) => c.ops.invokeOp('watchPoll', HGrid.make({ meta: HDict.make(refresh ? { watchId, refresh: HMarker.make() } : { watchId }) }))
  const opened = await sub({ watchDis: 'plant', lease: HNum.make(30, 's') }, [one, two, 'nothing1'])
  const watchId = (opened.meta.get('watchId') as HStr).value
  t.match(watchId, /^w-/)
  t.same((opened.meta.get('lease') as HNum).toJSON(), { _kind: 'number', val: 30, unit: 's' }, 'the lease granted')
  t.equal(opened.length, 3, 'one row per id, in order')
  t.match(opened.getRows()[0].toJSON(), { id: { val: one }, point: { _kind: 'marker' }, curVal: { val: 19, unit: '°C' }, curStatus: 'ok', dataPointID: 'ahu-1.sp', writable: { _kind: 'marker' } }, 'the record with its latest value')
  t.match(opened.getRows()[1].toJSON(), { id: { val: two }, curStatus: 'unknown' }, 'no observation yet')
  t.same(opened.getRows()[2].toJSON(), {}, 'an unknown id: a row of nulls')
  t.equal((await poll(watchId)).length, 0, 'nothing changed yet')

  t.equal((await site.http('POST', `/v2/project/${site.pid}/timeseries`, { 'ahu-2.sp': [{ time: new Date().toISOString(), value: 23.5 }] })).status, 200)
  const changed = await waitFor(async () => { const g = await poll(watchId); return g.length > 0 ? g : undefined }, { what: 'the poll to report the new observation' })
  t.same(changed.getRows().map((r) => [(r.get('id') as HRef).value, (r.get('curVal') as HNum).value]), [[two, 23.5]])
  t.equal((await poll(watchId)).length, 0, 'reported once')
  const all = await poll(watchId, true)
  t.same(all.getRows().map((r) => (r.get('id') as HRef).value).sort(), [one, two].sort(), 'refresh: every point')

  // Another login, even of the same company, does not see the watch; its own watch omits what it cannot read.
  const narrow = await user('narrow', { authed_endpoints: [239, 240, 241], authed_tags: [{ key: 'dataPointID', value: 'ahu-2.sp', read: true, write: false }] })
  const hn = client(site.platform.address, site.pid, narrow, JSON_MIME)
  await t.rejects(poll(watchId, false, hn), /Unknown watch/)
  const theirs = await sub({ watchDis: 'narrow' }, [one, two], hn)
  t.same(theirs.getRows()[0].toJSON(), {}, 'a point it cannot read is a row of nulls')
  t.match(theirs.getRows()[1].toJSON(), { id: { val: two } })
  t.same((theirs.meta.get('lease') as HNum).toJSON(), { _kind: 'number', val: 60, unit: 's' }, 'the default lease')

  // Unsub a point, then close.
  await hs.ops.invokeOp('watchUnsub', HGrid.make({ meta: HDict.make({ watchId }), rows: [HDict.make({ id: HRef.make(one) })] }))
  t.same((await poll(watchId, true)).getRows().map((r) => (r.get('id') as HRef).value), [two])
  await hs.ops.invokeOp('watchUnsub', HGrid.make({ meta: HDict.make({ watchId, close: HMarker.make() }) }))
  await t.rejects(poll(watchId), /Unknown watch/, 'closed')
  await t.rejects(hs.ops.invokeOp('watchSub', HGrid.make({ meta: HDict.make({ watchDis: 'x', lease: HNum.make(5) }), rows: [HDict.make({ id: HRef.make(two) })] })), /lease must be a Number with a time unit/)

  await site.platform.catalog.createCompanyWithAdmin('Beta', B)
  await t.rejects(sub({ watchDis: 'b' }, [one], client(site.platform.address, site.pid, B)), 'another company opens nothing')
  const none = await user('none', { authed_endpoints: [234] })
  await t.rejects(sub({ watchDis: 'n' }, [one], client(site.platform.address, site.pid, none)), /Unauthorized access to endpoint: 239/)
})
