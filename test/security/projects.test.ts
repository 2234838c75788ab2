// Issue 9 attacks on projects and ingest, through real clients (HTTP over fetch, MQTT over
// TCP): a deleted project's calculation must not reach a later project (item 7), one caller
// must not create unbounded datapoints (item 8, the quota), and identifiers with control
// characters are stored by no ingest path (item 9). Two companies: Live (A) and Beta (B).
import t, { type Test } from 'tap'
import { livePlatform, until } from '../helpers/live-platform.ts'
import type { Login } from '../helpers/platform.ts'

const T = 1_700_000_000_000_000_000n // ns
const B: Login = { email: 'boss@beta.test', password: 'beta-password-1' }

async function setup(t: Test) {
  const live = await livePlatform(t, { LINTEL_MQTT_TCP_PORT: '0' })
  await live.platform.catalog.createCompanyWithAdmin('Beta', B) // the operator path (lintel company create)
  const csv = async (pid: number, text: string, onError: 'abort' | 'continue', who?: Login) => {
    const form = new FormData()
    form.append('import_file', new Blob([text]), 'data.csv')
    const res = await fetch(`${live.platform.address}/v2/project/${pid}/importTimeseries?format=csv&on_error=${onError}`, {
      method: 'POST', body: form, headers: { authorization: 'Basic ' + Buffer.from(`${(who ?? ADMIN_OF(live)).email}:${(who ?? ADMIN_OF(live)).password}`).toString('base64') },
    })
    return { status: res.status, body: await res.json() as any }
  }
  return { ...live, csv }
}
const ADMIN_OF = (_live: unknown): Login => ({ email: 'admin@live.test', password: 'live-admin-pass' })

t.test('item 7: a deleted project stops its virtual datapoints, and a later project (another company) gets none of its ids or outputs', async (t) => {
  const live = await setup(t)
  const { catalog, store, vdpRuntime } = live.platform
  const pidA = await live.project('A-site')
  const vdpUrl = (pid: number, q: string) => `/v2/project/${pid}/virtual_datapoint${q}`
  const made = await live.http('POST', vdpUrl(pidA, '?dataPointID=out&type=formula'), { pins: { P1: { dataPointID: 'in' } }, parameters: { formula: 'P1 * 2' } })
  t.equal(made.status, 201)
  t.ok(await until(async () => (await live.http('GET', vdpUrl(pidA, '?dataPointID=out'))).body.status === 'Ready to start'))
  const ran = await live.http('POST', vdpUrl(pidA, '/run?dataPointID=out&run=true'))
  t.equal(ran.body.status, 'Running', JSON.stringify(ran.body))
  t.equal((await live.http('POST', `/v2/project/${pidA}/timeseries`, { in: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })).status, 200)
  t.ok(await until(async () => (await live.read(pidA, 'out')).data?.length === 1), 'the calculation runs')
  const oldIn = (await catalog.datapoints.get(pidA, 'in')).id
  const oldOut = (await catalog.datapoints.get(pidA, 'out')).id
  const vdpId = (await catalog.virtualDatapoints.get(pidA, 'out')).id

  // Positive control of the probe used below: an observation of the old input series,
  // followed by a marker write, leaves the calculation's output durable before the marker.
  const probe = async (time: number) => {
    await store.append([{ series: oldIn, time, value: 5 }])
    await store.append([{ series: 999_999_999, time, value: 0 }]) // the writer commits in order
    return (await store.read(oldOut, {})).length
  }
  t.equal(await probe(1_704_067_300_000_000), 2, 'while running, the probe yields an output')

  const alert = await live.http('POST', `/v2/alert/threshold?project_id=${pidA}`, { name: 'high', dataPointID: 'in', thresholds: { crit: { upper: 100 } } })
  t.equal(alert.status, 201)
  const alertId = alert.body.resource.id as number
  t.ok(live.platform.alerts!.isRunning(alertId), 'an alert runs for the project')
  t.same(live.platform.projectRuntimes.names().sort(), ['alerts', 'analytics', 'controls apps', 'setpoints', 'virtual datapoints'], 'every runtime is asked to stop a deleted project')

  const del = await live.http('DELETE', `/v2/project/${pidA}`)
  t.equal(del.status, 200)
  t.notOk(live.platform.alerts!.isRunning(alertId), 'the alert stopped')
  t.notOk(vdpRuntime!.isRunning(vdpId), 'stopped')
  t.same(vdpRuntime!.runningIds(), [])
  t.equal(await probe(1_704_067_400_000_000), 0, 'the old calculation writes nothing any more (and its series were deleted)')

  // Company B creates a project: fresh ids everywhere, nothing of A's data.
  const res = await live.http('POST', '/v2/company/project', { name: 'B-site' }, B)
  const pidB = res.body.resource.project.id as number
  t.ok(pidB > pidA, `project id ${pidB} is not ${pidA} again`)
  t.equal((await live.http('POST', `/v2/project/${pidB}/timeseries`, { in: [{ time: '2024-01-01T00:00:00Z', value: 7 }], out: [{ time: '2023-01-01T00:00:00Z', value: 0 }] }, B)).status, 200)
  const newIn = (await catalog.datapoints.get(pidB, 'in')).id
  const newOut = (await catalog.datapoints.get(pidB, 'out')).id
  t.ok(newIn > oldOut && newOut > oldOut, 'datapoint ids are new')
  const alertB = await live.http('POST', `/v2/alert/threshold?project_id=${pidB}`, { name: 'high', dataPointID: 'in', thresholds: { crit: { upper: 100 } } }, B)
  t.ok(alertB.body.resource.id > alertId, 'alert ids are new')
  // A late write of the deleted project's series (its calculation still finishing) comes after
  // B's own value at the same time: were an id reused, it would overwrite B's value.
  await store.append([{ series: newIn, time: 1_704_067_500_000_000, value: 9 }])
  await store.append([{ series: oldIn, time: 1_704_067_500_000_000, value: 666 }])
  await store.append([{ series: 999_999_999, time: 1, value: 0 }])
  const seen = await live.http('GET', `/v2/datapoint/timeseries?project_id=${pidB}&dataPointID=out`, undefined, B)
  t.same(seen.body.data, [{ time: '2023-01-01T00:00:00Z', value: 0 }], 'only what B wrote: no output of the old calculation')
  const seenIn = await live.http('GET', `/v2/datapoint/timeseries?project_id=${pidB}&dataPointID=in`, undefined, B)
  t.same(seenIn.body.data, [{ time: '2024-01-01T00:00:00Z', value: 7 }, { time: '2024-01-01T00:05:00Z', value: 9 }], 'a late write to a deleted project\'s series never lands in a new one')
  t.equal((await live.http('GET', `/v2/project/${pidA}`)).status, 404)
  t.equal((await live.http('GET', `/v2/project/${pidB}`, undefined, B)).body.meta.total_items, 2)
})

t.test('item 9: identifiers with control characters are refused on every ingest path', async (t) => {
  const live = await setup(t)
  const { catalog } = live.platform
  const pid = await live.project('Ctl')
  const bad = ['a\u0000b', 'tab\there', 'nl\nx', 'del\u007f', 'c1\u0085x', '\u009f']
  for (const id of bad) {
    const res = await live.http('POST', `/v2/project/${pid}/timeseries`, { [id]: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })
    t.equal(res.status, 400, `JSON ${JSON.stringify(id)}`)
    t.match(res.body.error, `Refused: the datapoint identifier ${JSON.stringify(id).replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)} contains the control character U+`)
    t.notMatch(res.body.error, /[\u0000-\u001f\u007f-\u009f]/, 'the message itself holds no control character')
  }
  t.equal((await live.http('POST', `/v2/project/${pid}/timeseries`, { ok: [{ time: '2024-01-01T00:00:00Z', value: 1 }], 'x\u0000': [] })).status, 400, 'all or nothing')

  const abort = await live.csv(pid, 'good,1,2024-01-01\n"nul\u0000id",2,2024-01-01\n', 'abort')
  t.same([abort.status, abort.body.error], [400, 'Error in line 2: Identifier contains the control character U+0000'])
  const cont = await live.csv(pid, 'good,1,2024-01-01\nbell\u0007,2,2024-01-01\nc1\u0080,3,2024-01-01\n', 'continue')
  t.equal(cont.status, 200)
  t.same(cont.body.resource.errors, [
    { line_no: 2, error: 'Identifier contains the control character U+0007' },
    { line_no: 3, error: 'Identifier contains the control character U+0080' }])

  const dev = await live.account(pid, 'ctl-dev', 'write')
  const pub = await live.connect(dev, { via: 'tcp' })
  const before = live.platform.broker.metrics().lines_dropped
  await pub.publishAsync(`lintel/p${pid}`, Buffer.from(`mq value=1 ${T}\n"nul\u0000" value=2 ${T}\nesc\\ \u001b value=3 ${T}\n`), { qos: 1 })
  t.equal(live.platform.broker.metrics().lines_dropped - before, 2, 'MQTT lines dropped and counted')
  const metaBefore = live.platform.broker.metrics().meta_dropped
  const settings = await catalog.projects.settings(pid)
  for (const payload of [
    { entity: { id: 'meta\u0000dp', type: 'datapoint', source: 's' }, mode: ['add'], tags: [{ key: 'k', value: 'v' }] },
    { entity: { id: 'dev', type: 'device', source: 's' }, mode: ['add'], tags: [], datapoints: ['child\u0001'] },
    { name: 'v1\u0000', objtype: 'analogInput' },
    { entity: { id: 'tagged', type: 'datapoint', source: 's' }, mode: ['add'], tags: [{ key: 'room\u0000', value: 'A' }] },
  ]) await pub.publishAsync(`META/${settings.load_balancing_group}/${settings.project_handle}`, JSON.stringify(payload), { qos: 1 })
  t.equal(live.platform.broker.metrics().meta_dropped - metaBefore, 4, 'META messages dropped and counted (also a tag key with a control character)')

  const vdp = await live.http('POST', `/v2/project/${pid}/virtual_datapoint?dataPointID=${encodeURIComponent('v\u0000')}&type=formula`, { pins: { P1: { dataPointID: 'good' } }, parameters: { formula: 'P1' } })
  t.equal(vdp.status, 400, 'virtual datapoint id')
  const pin = await live.http('POST', `/v2/project/${pid}/virtual_datapoint?dataPointID=v&type=formula`, { pins: { P1: { dataPointID: 'in\u0000' } }, parameters: { formula: 'P1' } })
  t.equal(pin.status, 400, 'virtual datapoint pin')

  const alert = await live.http('POST', `/v2/alert/threshold?project_id=${pid}`, { name: 'a', dataPointID: 'al\u0000', thresholds: { crit: { upper: 1 } } })
  t.same([alert.status, alert.body.error], [400, 'Refused: the datapoint identifier "al\\u0000" contains the control character U+0000'], 'an alert on a new datapoint')
  const account = await live.http('POST', `/v2/project/${pid}/mqttuser`, { username: 'dev\u0085x', password: 'dev-password-1' })
  t.same([account.status, account.body.error], [400, 'Refused: the MQTT username "dev\\u0085x" contains the control character U+0085'], 'an MQTT username')
  for (const [folder, name, what] of [['ok', 'nul\u0000.pdf', 'path'], ['c1\u0085', 'f.pdf', 'folder']]) {
    const form = new FormData()
    form.append('file', new Blob(['x']), name)
    const res = await fetch(`${live.platform.address}/v2/project/${pid}/file?folder=${encodeURIComponent(folder)}`, { method: 'POST', body: form, headers: { authorization: 'Basic ' + Buffer.from(`${ADMIN_OF(live).email}:${ADMIN_OF(live).password}`).toString('base64') } })
    const body = await res.json() as { error: string }
    t.equal(res.status, 400, `a document ${what}`)
    t.match(body.error, new RegExp(`^Invalid ${what} ".*\\\\u00(00|85).*": segments must not .* nor contain backslashes or control characters`))
  }
  t.same((await live.http('GET', `/v2/project/${pid}/files`)).body.items, [], 'no document stored')

  const stored = (await catalog.datapoints.listByProject(pid)).map((d) => d.dataPointID).sort()
  t.same(stored, ['good', 'mq'], 'only the clean identifiers exist')
})

t.test('item 8: the operator quota bounds datapoints on every ingest path (413; MQTT drops and counts)', async (t) => {
  const live = await setup(t)
  const { catalog } = live.platform
  const pid = await live.project('Quota')
  await catalog.datapoints.setQuota(pid, 3) // what `lintel project quota --id <pid> --datapoints 3` does
  t.equal((await live.http('POST', `/v2/project/${pid}/timeseries`, { a: [{ time: '2024-01-01T00:00:00Z', value: 1 }], b: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })).status, 200)
  const over = await live.http('POST', `/v2/project/${pid}/timeseries`, { a: [{ time: '2024-01-02T00:00:00Z', value: 2 }], c: [{ time: '2024-01-01T00:00:00Z', value: 1 }], d: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })
  t.same(over, { status: 413, body: { success: false, operation: '', error: `Datapoint quota of project ${pid} reached: it holds 2 of at most 3 datapoints (set by the operator), so 2 new datapoint(s) cannot be created` } })
  t.equal((await live.read(pid, 'a')).data.length, 1, 'nothing of the refused request is stored')
  t.equal((await live.http('POST', `/v2/project/${pid}/timeseries`, { a: [{ time: '2024-01-02T00:00:00Z', value: 2 }] })).status, 200, 'known datapoints still take data')

  const abort = await live.csv(pid, 'a,3,2024-01-03\nx,1,2024-01-01\ny,1,2024-01-01\n', 'abort')
  t.equal(abort.status, 413)
  t.match(abort.body.error, /Datapoint quota of project \d+ reached: it holds 2 of at most 3 datapoints/)
  t.equal((await live.read(pid, 'a')).data.length, 2, 'an aborting import stores nothing')
  const cont = await live.csv(pid, 'a,3,2024-01-03\nx,1,2024-01-01\ny,1,2024-01-01\n', 'continue')
  t.equal(cont.status, 413)
  t.match(cont.body.error, /quota.*The import stopped; 0 line\(s\) before line 1 were stored/)

  const pub = await live.connect(await live.account(pid, 'quota-dev', 'write'), { via: 'tcp' })
  const before = live.platform.broker.metrics()
  await pub.publishAsync(`lintel/p${pid}`, `a value=9 ${T}\nm1 value=1 ${T}\nm2 value=1 ${T}\n`, { qos: 1 })
  const after = live.platform.broker.metrics()
  t.equal(after.lines_dropped - before.lines_dropped, 2, 'lines of datapoints beyond the quota are dropped and counted')
  t.equal(after.lines_stored - before.lines_stored, 1, 'the known datapoint\'s line is stored')
  t.equal((await live.http('POST', `/v2/project/${pid}/timeseries`, { c: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })).status, 200, 'one more fits')
  const s = await catalog.projects.settings(pid)
  await pub.publishAsync(`META/${s.load_balancing_group}/${s.project_handle}`, JSON.stringify({ entity: { id: 'm3', type: 'datapoint', source: 's' }, mode: ['add'], tags: [] }), { qos: 1 })
  t.equal(live.platform.broker.metrics().meta_dropped - after.meta_dropped, 1, 'META creates nothing beyond the quota')
  t.equal((await live.http('POST', `/v2/project/${pid}/virtual_datapoint?dataPointID=v&type=formula`, { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1' } })).status, 413, 'a virtual datapoint output counts too')
  t.same(await catalog.datapoints.quota(pid), { max: 3, used: 3, own: true })
  t.same((await catalog.datapoints.listByProject(pid)).map((d) => d.dataPointID), ['a', 'b', 'c'])
})

t.test('item 8: the datapoint list is paged and counts only what the caller may read', async (t) => {
  const live = await setup(t)
  const pid = await live.project('Paged')
  const body: Record<string, { time: string; value: number }[]> = {}
  for (let i = 0; i < 25; i++) body[`dp${String(i).padStart(2, '0')}`] = [{ time: '2024-01-01T00:00:00Z', value: i }]
  await live.http('POST', `/v2/project/${pid}/timeseries`, body)
  const page2 = await live.http('GET', `/v2/project/${pid}?page=2&per_page=10`)
  t.same(page2.body.meta, { current_page: 2, items_per_page: 10, total_items: 25, total_pages: 3 })
  t.same(page2.body.datapoints.map((d: { dataPointID: string }) => d.dataPointID), Array.from({ length: 10 }, (_, i) => `dp${10 + i}`))
  t.equal((await live.http('GET', `/v2/project/${pid}?per_page=2001`)).status, 400, 'at most 2000 per page')
  t.equal((await live.http('GET', `/v2/project/${pid}?page=0`)).status, 400)

  // A user whose role reads three datapoints sees those only, also in the counts.
  const user = { email: 'narrow@live.test', password: 'narrow-password' }
  const u = await live.http('POST', '/v2/company/user', { company_id: (await live.platform.catalog.companies.findByName('Live'))!.id, firstName: 'n', lastName: 'n', ...user })
  const role = await live.http('POST', `/v2/project/${pid}/role`, { name: 'narrow', authed_endpoints: [30], authed_tags: ['dp03', 'dp17', 'dp24'].map((v) => ({ key: 'dataPointID', value: v, read: true, write: false })) })
  await live.http('POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${u.body.resource.id}`)
  const narrow = await live.http('GET', `/v2/project/${pid}?per_page=2&page=2`, undefined, user)
  t.same(narrow.body.meta, { current_page: 2, items_per_page: 2, total_items: 3, total_pages: 2 })
  t.same(narrow.body.datapoints.map((d: { dataPointID: string }) => d.dataPointID), ['dp24'])
  t.equal((await live.http('GET', `/v2/project/${pid}`, undefined, B)).status, 404, 'another company sees nothing')
})
