// Controls apps over HTTP (issue 31 item 1, endpoints 170-177) against the whole platform, with
// the edge device simulated by a real MQTT client on the project's edge account: creation with
// its validation (a 400 naming the field and the reason), the lifecycle through the edge's
// APPSTATE answers, delete refused while running (query and path forms), logs from APPLOG once
// per (app, seq), APPSYNC, the list with filters and pages, and the multi-app run.
import t from 'tap'
import { controlsSite, FLOW, FLOW_SP, WEEK } from '../helpers/controls-site.ts'

t.test('create: defaults filled in, pins resolved, nothing sent to the edge yet', async (t) => {
  const site = await controlsSite(t)
  const res = await site.create(WEEK, '&variation=two-point&description=Office%20heating')
  t.equal(res.status, 201)
  t.match(res.body, { success: true, operation: 'create' })
  const a = res.body.resource
  t.match(a, {
    controls_app_id: a.id, project_id: site.pid, component_in_project_id: site.cip, algorithm: 'schedule', variation: 'two-point',
    name: 'Heating', description: 'Office heating', pins: { flow_temp_setpoint: FLOW_SP }, status: { code: 100, message: 'Created', reason: '' },
    deployment: { desired: 'stop', revision: 1, confirmed_revision: 0, pending: false }, created_by: 'admin@live.test',
  })
  t.same(a.configuration, { ...WEEK, alive_timeout_s: 900, auto_recovery: true }, 'the defaults of the schedule')
  t.same((await site.get(a.id)).body, a)
  t.same(site.edge.defs, [], 'a created app is not deployed')
})

t.test('create: every invalid input is a 4xx naming the field and the reason', async (t) => {
  const site = await site0(t)
  const bad = async (config: object, query = '') => (await site.create(config, query)).body.error as string
  t.match(await bad(WEEK, '&algorithm=pid'), /validation|algorithm/i, 'a second algorithm parameter is refused')
  const unknownAlgorithm = await site.http('POST', `/v2/controls/app?project_id=${site.pid}&componentinproject_id=${site.cip}&algorithm=pid`, WEEK)
  t.same([unknownAlgorithm.status, unknownAlgorithm.body.error], [400, "algorithm: unknown algorithm 'pid' (known: schedule)"])
  t.match(await bad({ priority: 13 }), /^Invalid configuration: configuration\.week: is required/)
  t.match(await bad({ ...WEEK, week: [{ days: ['mon'], time: '25:00', values: { flow_temp_setpoint: 21 } }] }), /configuration\.week\[0\]\.time: /)
  t.match(await bad({ ...WEEK, week: [{ days: ['monday'], time: '06:00', values: { flow_temp_setpoint: 21 } }] }), /configuration\.week\[0\]\.days/)
  t.match(await bad({ ...WEEK, week: [{ days: ['mon'], time: '06:00', values: { boiler: 21 } }] }), /configuration\.week\[0\]\.values\.boiler: /, 'a pin the component does not have (mapped)')
  t.match(await bad({ ...WEEK, colour: 'red' }), /configuration\.colour: unknown field/)
  t.match(await bad({ ...WEEK, alive_timeout_s: 5 }), /configuration\.alive_timeout_s: must be an integer from 60/)
  const out = await site.create({ ...WEEK, week: [{ days: ['mon'], time: '06:00', values: { flow_temp_setpoint: 35 } }] })
  t.same([out.status, out.body.error], [400, `configuration.week[0].values.flow_temp_setpoint: 35 is outside the write bounds [10,30] of datapoint '${FLOW_SP}'`])
  t.equal(out.body.success, false)
  const sensor = await site.create({ week: [{ days: ['mon'], time: '06:00', values: { flow_temp: 21 } }] })
  t.same([sensor.status, sensor.body.error], [400, `configuration: pin flow_temp writes datapoint '${FLOW}', which is not writable (its metadata has no tag writable=true)`])
  const urgent = await site.create({ ...WEEK, priority: 3 })
  t.equal(urgent.status, 403)
  t.match(urgent.body.error, /^configuration\.priority 3 is more urgent than 8/)
  const noCip = await site.http('POST', `/v2/controls/app?project_id=${site.pid}&componentinproject_id=999999&algorithm=schedule`, WEEK)
  t.same([noCip.status, noCip.body.error], [404, `Component in project 999999 not found in project ${site.pid}`])
  await site.platform.catalog.setpoints.setSettings(site.pid, { enabled: false })
  const off = await site.create()
  t.equal(off.status, 403)
  t.match(off.body.error, /setpoint writing is not enabled for project/)
  t.same((await site.http('GET', `/v2/controls/apps?project_id=${site.pid}`)).body.meta.total_items, 0, 'nothing was created')
})

/** The site, named for the tests that do not need the defaults test's name. */
const site0 = controlsSite

t.test('lifecycle: run, the edge answers, delete refused while running, stop, delete (query form) until the edge confirms', async (t) => {
  const site = await controlsSite(t)
  const id = (await site.create()).body.resource.id as string
  const run = await site.run(id)
  t.same(run, { status: 200, body: { affected: true, controls_app_id: id, status: { code: 200, message: 'Starting', reason: '' } } })
  const def = await site.edge.def((d) => d.app_id === id && d.revision === 2, 'revision 2 (run)')
  t.same(def, {
    type: 'APPDEF', swop_version: 0.1, app_id: id, revision: 2, desired: 'run', algorithm: 'schedule', zone: 'UTC',
    pins: { flow_temp_setpoint: FLOW_SP }, configuration: { ...WEEK, alive_timeout_s: 900, auto_recovery: true }, holidays: [],
  })
  t.same((await site.run(id)).body.affected, false, 'run of a starting app: nothing to do')
  const early = await site.http('DELETE', `/v2/controls/app?project_id=${site.pid}&controls_app_id=${id}`)
  t.equal(early.status, 409, 'delete refused while starting')
  await site.edge.state(id, 2, 'Running')
  const running = await site.settled(id, (a) => a.status.code === 202, 'Running')
  t.match(running.deployment, { revision: 2, confirmed_revision: 2, pending: false })
  const refused = await site.http('DELETE', `/v2/controls/app?project_id=${site.pid}&controls_app_id=${id}`)
  t.equal(refused.status, 409)
  t.match(refused.body, { success: false, operation: 'delete', error: `Controls app '${id}' is running: stop it first (POST /v2/controls/app/{controls_app_id}/run?run=false) and delete it once it is Stopped` })
  t.equal((await site.http('DELETE', `/v2/controls/app/${id}?project_id=${site.pid}`)).status, 409, 'the path form alike')

  // An answer for an older revision is stale: it moves nothing.
  const stop = await site.run(id, false)
  t.same(stop.body, { affected: true, controls_app_id: id, status: { code: 300, message: 'Stopping', reason: '' } })
  t.match(await site.edge.def((d) => d.app_id === id && d.revision === 3, 'revision 3 (stop)'), { desired: 'stop' })
  await site.edge.state(id, 2, 'Failed', 'late answer')
  await site.edge.state(id, 3, 'Stopped')
  const stopped = await site.settled(id, (a) => a.status.code === 302, 'Stopped')
  t.same(stopped.status, { code: 302, message: 'Stopped', reason: '' }, 'the stale Failed of revision 2 was ignored')
  t.same((await site.run(id, false)).body.affected, false, 'stop of a stopped app: nothing to do')

  const del = await site.http('DELETE', `/v2/controls/app?project_id=${site.pid}&controls_app_id=${id}`)
  t.equal(del.status, 200)
  t.match(del.body, { success: true, operation: 'delete', resource: { id, status: { code: 500, message: 'Deleting' }, deployment: { desired: 'delete', revision: 4, pending: true } } })
  t.match(await site.edge.def((d) => d.app_id === id && d.revision === 4, 'revision 4 (delete)'), { desired: 'delete' })
  t.equal((await site.run(id)).status, 409, 'no run while deleting')
  t.equal((await site.get(id)).body.status.code, 500, 'kept until the edge confirms')
  await site.edge.state(id, 4, 'Deleted')
  await site.settled(id, (a) => a.success === false, 'removed')
  t.same((await site.get(id)).status, 404)
})

t.test('delete (path form) of an app never deployed: removed at once, nothing sent', async (t) => {
  const site = await controlsSite(t)
  const id = (await site.create()).body.resource.id as string
  const del = await site.http('DELETE', `/v2/controls/app/${id}?project_id=${site.pid}`)
  t.match(del, { status: 200, body: { operation: 'delete', resource: { id, status: { code: 500, message: 'Deleting' } } } })
  t.equal((await site.get(id)).status, 404)
  t.same(site.edge.defs, [])
  t.equal((await site.http('DELETE', `/v2/controls/app?project_id=${site.pid}&controls_app_id=${id}`)).status, 404, 'gone')
})

t.test('logs: status changes and the edge\'s entries, each (app, seq) once, paged newest first; a conflict shows in the status', async (t) => {
  const site = await controlsSite(t)
  const id = (await site.create()).body.resource.id as string
  await site.run(id)
  await site.edge.state(id, 2, 'Running')
  await site.settled(id, (a) => a.status.code === 202, 'Running')
  await site.edge.log(id, 1, { kind: 'write', datapoint: FLOW_SP, value: 21, priority: 13, message: 'switching 06:00: wrote 21' })
  await site.edge.log(id, 2, { kind: 'write', datapoint: FLOW_SP, value: 16, priority: 13, message: 'switching 22:00: wrote 16' })
  await site.edge.log(id, 2, { kind: 'write', datapoint: FLOW_SP, value: 16, priority: 13, message: 'switching 22:00: wrote 16' }) // again after a reconnect
  await site.edge.log(id, 3, { kind: 'conflict', datapoint: FLOW_SP, priority: 13, message: 'a manual setpoint holds priority 13 of hc1.flow_sp' })
  const app = await site.settled(id, (a) => a.status.reason !== '', 'showing the conflict')
  t.same(app.status, { code: 202, message: 'Running', reason: 'a manual setpoint holds priority 13 of hc1.flow_sp' })
  const all = (await site.logs(id, '&per_page=50')).body
  t.equal(all.meta.total_items, 6, 'created, run, running, three edge entries (seq 2 once)')
  t.same(all.items.filter((e: any) => e.seq !== null).map((e: any) => e.seq).sort(), [1, 2, 3])
  t.match(all.items.find((e: any) => e.seq === 1), { type: 'write', datapoint: FLOW_SP, value: 21, priority: 13, message: 'switching 06:00: wrote 21', status_code: null })
  t.match(all.items.find((e: any) => e.type === 'status_change' && e.status_code === 202), { status_text: 'Running', message: /^Running on the edge agent \(edge account edge-1\)/ })
  t.match(all.items[all.items.length - 1], { type: 'status_change', status_code: 100, status_text: 'Created', message: 'Created by admin@live.test', ts: /^\d+$/ })
  const page = (await site.logs(id, '&page=2&per_page=4')).body
  t.same([page.items.length, page.meta], [2, { current_page: 2, items_per_page: 4, total_items: 6, total_pages: 2 }])
})

t.test('APPSYNC: the edge gets what it lacks, and a delete for an app the project no longer has', async (t) => {
  const site = await controlsSite(t)
  const id = (await site.create()).body.resource.id as string
  await site.run(id)
  await site.edge.def((d) => d.app_id === id && d.revision === 2, 'revision 2')
  const from = site.edge.defs.length
  await site.edge.sync([{ app_id: 'ghost', revision: 7 }])
  t.match(await site.edge.def((d) => d.app_id === id, 'the app again', 10_000, from), { revision: 2, desired: 'run' })
  const ghost = await site.edge.def((d) => d.app_id === 'ghost', 'a delete of ghost', 10_000, from)
  t.same(ghost, { type: 'APPDEF', swop_version: 0.1, app_id: 'ghost', revision: 8, desired: 'delete', algorithm: 'schedule', zone: 'UTC', pins: {} })
  const after = site.edge.defs.length
  await site.edge.sync([{ app_id: id, revision: 2 }])
  await site.edge.state(id, 2, 'Running') // a message after the sync: once it is handled, so is the sync
  await site.settled(id, (a) => a.status.code === 202, 'Running')
  t.equal(site.edge.defs.length, after, 'the edge holds the current revision: nothing sent')
})

t.test('list: filters, search, pages; the multi-app run reports per app', async (t) => {
  const site = await controlsSite(t)
  const ids: string[] = []
  for (const name of ['Office', 'Lab', 'Hall']) ids.push((await site.http('POST', `/v2/controls/app?project_id=${site.pid}&componentinproject_id=${site.cip}&algorithm=schedule&name=${name}`, WEEK)).body.resource.id)
  const list = (q: string) => site.http('GET', `/v2/controls/apps?project_id=${site.pid}${q}`).then((r) => r.body)
  const page = await list('&per_page=2&page=2')
  t.same([page.items.map((a: any) => a.name), page.meta], [['Hall'], { current_page: 2, items_per_page: 2, total_items: 3, total_pages: 2 }])
  t.same((await list('&search=lab')).items.map((a: any) => a.name), ['Lab'])
  const multi = await site.http('POST', `/v2/controls/apps/run?project_id=${site.pid}`, { run: true, controls_app_ids: [ids[0], 'nope', ids[2]] })
  t.equal(multi.status, 200)
  t.same(multi.body, {
    run: true, succeeded: 2, failed: 1, results: [
      { controls_app_id: ids[0], affected: true, status: { code: 200, message: 'Starting', reason: '' }, error: null, http_status: 200 },
      { controls_app_id: 'nope', affected: false, status: null, error: `Controls app 'nope' not found in project ${site.pid}`, http_status: 404 },
      { controls_app_id: ids[2], affected: true, status: { code: 200, message: 'Starting', reason: '' }, error: null, http_status: 200 },
    ],
  })
  t.same((await list('&status_code=200')).items.map((a: any) => a.name), ['Office', 'Hall'])
  t.same((await list(`&componentinproject_id=${site.cip}&algorithm=schedule`)).meta.total_items, 3)
  const dup = await site.http('POST', `/v2/controls/apps/run?project_id=${site.pid}`, { run: true, controls_app_ids: [ids[0], ids[0]] })
  t.equal(dup.status, 400, 'an id named twice is refused')
  const none = await site.http('POST', `/v2/controls/apps/run?project_id=${site.pid}`, { run: true, controls_app_ids: [] })
  t.equal(none.status, 400)
})

t.test('deleting a datapoint an app writes (endpoint 222): 409 naming the app, the datapoint kept', async (t) => {
  const site = await controlsSite(t)
  const id = (await site.create()).body.resource.id as string
  const del = await site.http('DELETE', `/v2/datapoint?project_id=${site.pid}&dataPointID=${encodeURIComponent(FLOW_SP)}`)
  t.match(del, { status: 409, body: { success: false, error: `Datapoint '${FLOW_SP}' is used by controls app 'Heating' (${id}): delete or change them first` } })
  t.equal((await site.get(id)).body.pins.flow_temp_setpoint, FLOW_SP, 'the app still has its pin')
  t.equal((await site.http('GET', `/v2/datapoint/timeseries?project_id=${site.pid}&dataPointID=${encodeURIComponent(FLOW_SP)}`)).status, 200, 'the datapoint is kept')
})
