// The holiday calendar and the resolved schedules (issue 31 item 2, endpoints 178-181): the
// calendar is validated field by field, a change re-deploys the project's deployed apps with a
// new revision (APPDEF carries the calendar), and the schedule of a mapped component resolves
// in the project's time zone, with the holiday program on holidays and the DST changes of
// Europe/Berlin (a 02:30 switching on the spring day runs at 03:00).
import t from 'tap'
import { controlsSite } from '../helpers/controls-site.ts'

const CALENDAR = [
  { name: 'Christmas', date: '2025-12-24', end: '2025-12-26', yearly: true },
  { name: 'Plant holiday', date: '2026-08-05' },
]

t.test('the calendar: validated, stored, re-deploys the deployed apps with a new revision', async (t) => {
  const site = await controlsSite(t)
  const put = (body: unknown) => site.http('PUT', `/v2/project/${site.pid}/holidays`, body)
  const bad = await put([{ name: 'X', date: '2026-02-30' }])
  t.equal(bad.status, 400)
  t.match(bad.body.error, /^Invalid holiday calendar: holidays\[0\]\.date: /)
  t.match((await put([{ name: 'X', date: '2026-03-01', end: '2026-02-01' }])).body.error, /holidays\[0\]\.end: /)
  t.same(await put({ name: 'X' }).then((r) => [r.status, r.body.error]), [400, 'Invalid input: body must be array'], 'not a list: the schema\'s answer')

  const idle = (await site.create()).body.resource.id as string // never run: not deployed
  const id = (await site.create()).body.resource.id as string
  await site.run(id)
  await site.edge.def((d) => d.app_id === id && d.revision === 2, 'revision 2')
  const res = await put(CALENDAR)
  t.equal(res.status, 200)
  t.match(res.body, { success: true, operation: 'update', resource: { project_id: site.pid, holidays: CALENDAR, redeployed: 1 } })
  const def = await site.edge.def((d) => d.app_id === id && d.revision === 3, 'revision 3 with the calendar')
  t.same([def.desired, def.holidays], ['run', CALENDAR])
  t.notOk(site.edge.defs.some((d) => d.app_id === idle), 'an app never run is not deployed')
  t.match((await site.get(id)).body.deployment, { revision: 3, pending: true })
  const logs = (await site.logs(id)).body.items
  t.match(logs[0], { type: 'deployment', message: 'Holiday calendar changed: revision 3 sent to the edge agent' })
  const got = (await site.http('GET', `/v2/project/${site.pid}/holidays`)).body
  t.match(got, { project_id: site.pid, holidays: CALENDAR, updated_at: /^\d{4}-/ })
})

t.test('resolved holidays and switching times of a component, in the project zone across the spring DST change', async (t) => {
  const site = await controlsSite(t)
  t.equal((await site.http('PUT', `/v2/project/${site.pid}`, { time_zone: 'Europe/Berlin' })).status, 200)
  t.equal((await site.http('PUT', `/v2/project/${site.pid}/holidays`, CALENDAR)).status, 200)
  const base = `/v2/project/${site.pid}/componentinproject/${site.cip}`
  const hol = await site.http('GET', `${base}/holidays?start=2026-12-01&end=2027-01-01`)
  t.same(hol.body, {
    project_id: site.pid, componentinproject_id: site.cip, zone: 'Europe/Berlin', start: '2026-12-01', end: '2027-01-01',
    holidays: [{ date: '2026-12-24', name: 'Christmas' }, { date: '2026-12-25', name: 'Christmas' }, { date: '2026-12-26', name: 'Christmas' }],
  }, 'a yearly range recurs; end is exclusive')

  // 29 March 2026 is the spring change (a Sunday): 02:30 does not exist and runs at 03:00.
  const config = {
    week: [
      { days: ['sun'], time: '02:30', values: { flow_temp_setpoint: 18 } },
      { days: ['mon'], time: '06:00', values: { flow_temp_setpoint: 21 } },
      { days: ['wed'], time: '06:00', values: { flow_temp_setpoint: 21 } },
    ],
    holiday: [{ time: '08:00', values: { flow_temp_setpoint: 12 } }],
  }
  const id = (await site.create(config)).body.resource.id as string
  t.equal((await site.http('PUT', `/v2/project/${site.pid}/holidays`, [{ name: 'Inspection', date: '2026-04-01' }])).status, 200)
  const res = await site.http('GET', `${base}/schedules?start=2026-03-29&end=2026-04-02`)
  t.equal(res.status, 200)
  t.same(res.body.apps.map((a: any) => [a.controls_app_id, a.priority, a.status.message]), [[id, 13, 'Created']])
  t.same(res.body.apps[0].switching, [
    { time: '2026-03-29T01:00:00.000Z', local: '2026-03-29T03:00', values: { flow_temp_setpoint: 18 } },
    { time: '2026-03-30T04:00:00.000Z', local: '2026-03-30T06:00', values: { flow_temp_setpoint: 21 } },
    { time: '2026-04-01T06:00:00.000Z', local: '2026-04-01T08:00', values: { flow_temp_setpoint: 12 }, holiday: 'Inspection' },
  ], 'the Wednesday is a holiday: its program replaces the week entry')
  const bad = (q: string) => site.http('GET', `${base}/schedules?${q.slice(1)}`).then((r) => [r.status, r.body.error])
  t.same(await bad('&start=yesterday&end=2026-04-02'), [400, "Cannot parse start 'yesterday': use an RFC 3339 timestamp or a date YYYY-MM-DD"])
  t.same(await bad('&start=2026-04-02&end=2026-03-29'), [400, 'end (2026-03-29) must be after start (2026-04-02)'])
  t.match(await bad('&start=2020-01-01&end=2026-01-01'), [400, /longer than 732 days/])
  const other = await site.http('GET', `/v2/project/${site.pid}/componentinproject/999999/schedules?start=2026-03-29&end=2026-04-02`)
  t.equal(other.status, 404)
})
