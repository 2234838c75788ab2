// The weekly schedule (spec 3 "States", "Events" 3; issue 12 item 4) on a simulated clock:
// enabled instances run Monday 00:00 to Monday 00:00, a week missed while the platform was
// down runs at the next tick, a week never runs twice, also with two workers on one catalog
// file (two connections, as two processes have), and disabled instances do not run.
import t, { type Test } from 'tap'
import { adminEndpoints } from '../../../api/registry.ts'
import { Catalog } from '../../../catalog/index.ts'
import { loadComponentLibrary } from '../../../engine/analytics/library.ts'
import { AnalyticsService } from '../../../engine/analytics/service.ts'
import { firstWholeWeek, nextWeek, specTimestamp, weekStart } from '../../../engine/analytics/weeks.ts'
import { openSqliteStore } from '../../../engine/store/sqlite-store.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { isSettled, waitFor } from '../../helpers/wait.ts'

const US = (iso: string) => Date.parse(iso) * 1000
const library = loadComponentLibrary()

t.test('week arithmetic: Monday 00:00, DST-proof in a zone, the spec timestamp form', async (t) => {
  t.equal(specTimestamp(weekStart(US('2024-01-03T15:00:00Z'))), '2024-01-01 00:00:00+00:00')
  t.equal(firstWholeWeek(US('2024-01-01T00:00:00Z')), US('2024-01-01T00:00:00Z'), 'created on a Monday at 00:00: that week')
  t.equal(firstWholeWeek(US('2024-01-01T00:00:01Z')), US('2024-01-08T00:00:00Z'))
  const berlin = weekStart(US('2024-03-27T12:00:00Z'), 'Europe/Berlin')
  t.equal(specTimestamp(berlin), '2024-03-24 23:00:00+00:00', 'Monday 00:00 CET')
  t.equal(specTimestamp(nextWeek(berlin, 'Europe/Berlin')), '2024-03-31 22:00:00+00:00', 'Monday 00:00 CEST: 167 hours later')
})

async function seeded(t: Test, dir: string) {
  const catalog = Catalog.open(dir, adminEndpoints)
  t.teardown(() => catalog.close())
  const { company, user } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'admin-pass-1' })
  const { project } = await catalog.projects.create(company.id, { name: 'P' }, user.id)
  const store = await openSqliteStore({ dir: `${dir}/ts` })
  t.teardown(() => store.close())
  const ids = await catalog.datapoints.ensure(project.id, ['flow', 'oat'])
  const cip = await catalog.componentsInProject.create(project.id, { component_id: 5, display_name: 'HC', tags: {} })
  await catalog.componentsInProject.setPins(cip.id, [{ pin_id: 501, datapoint: ids.get('flow')! }, { pin_id: 504, datapoint: ids.get('oat')! }])
  return { catalog, store, project, cip }
}

t.test('enabled instances run each whole week once; missed weeks after a restart; disabled ones never', async (t) => {
  const dir = t.testdir()
  const { catalog, store, project, cip } = await seeded(t, dir)
  const clock = new VirtualClock(US('2024-01-03T10:00:00Z')) // a Wednesday
  const service = () => new AnalyticsService({ catalog, store, library, clock, worker: 'w1' })
  const s = service()
  const on = await catalog.analytics.createInstance(project.id, { componentinproject_id: cip.id, analysisfunction_id: 2, name: 'curve', description: '', enabled: true, weeks_from: await s.weeksFrom(project.id) })
  await catalog.analytics.createInstance(project.id, { componentinproject_id: cip.id, analysisfunction_id: 4, name: 'off', description: '', enabled: false, weeks_from: await s.weeksFrom(project.id) })
  t.equal(await s.tick(), 0, 'the first whole week starts next Monday')
  clock.advanceTo(US('2024-01-14T23:59:59Z'))
  t.equal(await s.tick(), 0, 'not before the week has ended')
  clock.advanceTo(US('2024-01-15T00:00:00Z'))
  t.equal(await s.tick(), 1, 'Monday 00:00: the week of 8 January runs')
  t.equal(await s.tick(), 0, 'and never twice')
  // Down from 16 January to 5 February: three whole weeks missed; a new process catches up.
  clock.advanceTo(US('2024-02-05T08:00:00Z'))
  t.equal(await service().tick(), 3)
  const results = await catalog.analytics.results(on.id)
  t.same(results.map((r) => `${specTimestamp(r.start)} - ${specTimestamp(r.end)} ${r.trigger}`), [
    '2024-01-08 00:00:00+00:00 - 2024-01-15 00:00:00+00:00 weekly', '2024-01-15 00:00:00+00:00 - 2024-01-22 00:00:00+00:00 weekly',
    '2024-01-22 00:00:00+00:00 - 2024-01-29 00:00:00+00:00 weekly', '2024-01-29 00:00:00+00:00 - 2024-02-05 00:00:00+00:00 weekly',
  ])
  t.equal(results[0].status, 'no_data', 'a week without observations still gives its result (status no_data)')
  t.same((await catalog.analytics.weeks(on.id)).map((w) => [w.status_code, w.result_id]), results.map((r) => [200, r.result_id]), 'the ledger names each result')
  t.equal((await catalog.analytics.latestResults(project.id)).length, 1, 'the disabled instance has none')
})

t.test('weeks follow the project time zone: Monday 00:00 local, across the DST switch', async (t) => {
  const dir = t.testdir()
  const { catalog, store, project, cip } = await seeded(t, dir)
  await catalog.projects.update(project.id, { time_zone: 'Europe/Berlin' })
  const clock = new VirtualClock(US('2024-03-20T10:00:00Z'))
  const s = new AnalyticsService({ catalog, store, library, clock, worker: 'w1' })
  const on = await catalog.analytics.createInstance(project.id, { componentinproject_id: cip.id, analysisfunction_id: 2, name: 'curve', description: '', enabled: true, weeks_from: await s.weeksFrom(project.id) })
  t.equal(specTimestamp(on.weeks_from), '2024-03-24 23:00:00+00:00', 'Monday 25 March 00:00 CET')
  clock.advanceTo(US('2024-03-31T21:59:59Z'))
  t.equal(await s.tick(), 0, 'the week (167 hours: clocks go forward) has not ended yet')
  clock.advanceTo(US('2024-03-31T22:00:00Z'))
  t.equal(await s.tick(), 1, 'Monday 1 April 00:00 CEST')
  t.same((await catalog.analytics.results(on.id)).map((r) => `${specTimestamp(r.start)} - ${specTimestamp(r.end)}`), ['2024-03-24 23:00:00+00:00 - 2024-03-31 22:00:00+00:00'])
})

t.test('the autumn DST week in the project zone: 169 hours, all of them analysed', async (t) => {
  const dir = t.testdir()
  const { catalog, store, project, cip } = await seeded(t, dir)
  await catalog.projects.update(project.id, { time_zone: 'Europe/Berlin' })
  // Berlin leaves summer time on Sunday 27 October 2024 (03:00 CEST is 02:00 CET): the week
  // from Monday 21 October 00:00 CEST (20 Oct 22:00 UTC) to Monday 28 October 00:00 CET
  // (27 Oct 23:00 UTC) is 169 hours long. Hourly observations cover exactly those hours.
  const from = US('2024-10-20T22:00:00Z')
  const ids = await catalog.datapoints.ensure(project.id, ['flow', 'oat'])
  const hours = Array.from({ length: 169 }, (_, h) => from + h * 3_600_000_000)
  await store.append(hours.flatMap((time) => [{ series: ids.get('flow')!, time, value: 50 }, { series: ids.get('oat')!, time, value: 5 }]))
  const clock = new VirtualClock(US('2024-10-16T10:00:00Z'))
  const s = new AnalyticsService({ catalog, store, library, clock, worker: 'w1' })
  const on = await catalog.analytics.createInstance(project.id, { componentinproject_id: cip.id, analysisfunction_id: 2, name: 'curve', description: '', enabled: true, weeks_from: await s.weeksFrom(project.id) })
  t.equal(specTimestamp(on.weeks_from), '2024-10-20 22:00:00+00:00', 'Monday 21 October 00:00 CEST')
  clock.advanceTo(US('2024-10-27T22:59:59Z'))
  t.equal(await s.tick(), 0, 'the week has not ended 168 hours later: it is 169 hours long (clocks go back)')
  clock.advanceTo(US('2024-10-27T23:00:00Z'))
  t.equal(await s.tick(), 1, 'Monday 28 October 00:00 CET: the week runs')
  const [r] = await catalog.analytics.results(on.id)
  t.equal(`${specTimestamp(r.start)} - ${specTimestamp(r.end)}`, '2024-10-20 22:00:00+00:00 - 2024-10-27 23:00:00+00:00', 'the result covers Monday to Monday local time')
  t.match(r.texts.en.kpi.find((k: { name: string }) => k.name === 'Hours evaluated'), { unit: 'h', value: 169 }, 'every hour of the 169-hour week is read and analysed')
})

t.test('two workers on one catalog file: each week runs exactly once', async (t) => {
  const dir = t.testdir()
  const { catalog, store, project, cip } = await seeded(t, dir)
  const second = Catalog.open(dir, adminEndpoints) // another connection, as another process has
  t.teardown(() => second.close())
  for (const fn of [2, 4]) await catalog.analytics.createInstance(project.id, { componentinproject_id: cip.id, analysisfunction_id: fn, name: `f${fn}`, description: '', enabled: true, weeks_from: US('2024-01-01T00:00:00Z') })
  const clock = new VirtualClock(US('2024-03-01T00:00:00Z')) // 8 whole weeks due for each instance
  const a = new AnalyticsService({ catalog, store, library, clock, worker: 'a' })
  const b = new AnalyticsService({ catalog: second, store, library, clock, worker: 'b' })
  const [ranA, ranB] = await Promise.all([a.tick(), b.tick()])
  t.equal(ranA + ranB, 16, `16 weeks run in all (a ${ranA}, b ${ranB})`)
  for (const i of await catalog.analytics.instancesOfProject(project.id)) {
    const weeks = (await catalog.analytics.results(i.id)).map((r) => r.start)
    t.equal(new Set(weeks).size, weeks.length, `instance ${i.id}: no week twice`)
    t.equal(weeks.length, 8)
  }
  t.equal(await a.tick() + await b.tick(), 0)
})

t.test('stopProject (a project being deleted): the week under way finishes first, no further week starts', async (t) => {
  const dir = t.testdir()
  const { catalog, store, project, cip } = await seeded(t, dir)
  // Reads of the store wait at a gate the test opens, so a weekly run can be held mid-way.
  let open!: () => void
  let gate = new Promise<void>((resolve) => { open = resolve })
  let waiting = 0
  const gated = new Proxy(store, {
    get (target, prop) {
      const v = Reflect.get(target, prop)
      if (typeof v !== 'function' || !['read', 'sample'].includes(String(prop))) return typeof v === 'function' ? v.bind(target) : v
      return async (...args: unknown[]) => { waiting++; await gate; waiting--; return v.apply(target, args) }
    },
  })
  const s = new AnalyticsService({ catalog, store: gated, library, clock: new VirtualClock(US('2024-03-01T00:00:00Z')), worker: 'w1' })
  const on = await catalog.analytics.createInstance(project.id, { componentinproject_id: cip.id, analysisfunction_id: 2, name: 'curve', description: '', enabled: true, weeks_from: US('2024-01-01T00:00:00Z') })
  const ticking = s.tick() // 8 whole weeks are due
  await waitFor(() => waiting > 0, { what: 'the first week\'s run to read the store' })
  const stopping = s.stopProject(project.id)
  // The run is held at the gate (the cause), so stopProject cannot have finished yet.
  t.notOk(await isSettled(stopping), 'stopProject waits for the run under way')
  open()
  await stopping
  t.equal((await catalog.analytics.results(on.id)).length, 1, 'that run completed before stopProject returned')
  t.equal(await ticking, 1, 'and no further week of the project was run')
  gate = Promise.resolve()
  t.equal(await s.tick(), 0, 'nor on later ticks')
  t.equal((await catalog.analytics.results(on.id)).length, 1)
})

t.test('results kept per instance (issue 29): weekly and manual runs keep the newest maxResults', async (t) => {
  const dir = t.testdir()
  const { catalog, store, project, cip } = await seeded(t, dir)
  const clock = new VirtualClock(US('2024-01-03T10:00:00Z'))
  const s = new AnalyticsService({ catalog, store, library, clock, worker: 'w1', maxResults: 2 })
  const on = await catalog.analytics.createInstance(project.id, { componentinproject_id: cip.id, analysisfunction_id: 2, name: 'curve', description: '', enabled: true, weeks_from: await s.weeksFrom(project.id) })
  clock.advanceTo(US('2024-02-05T08:00:00Z'))
  t.equal(await s.tick(), 4, 'four weeks run')
  const weekly = (await catalog.analytics.results(on.id)).map((r) => specTimestamp(r.start))
  t.same(weekly, ['2024-01-22 00:00:00+00:00', '2024-01-29 00:00:00+00:00'], 'the two newest weeks are kept, the oldest dropped first')
  t.equal((await catalog.analytics.weeks(on.id)).length, 4, 'the ledger keeps every week: none runs again')
  t.equal(await s.tick(), 0)
  const manual = await s.runNow((await catalog.analytics.instance(on.id)), US('2024-01-01T00:00:00Z'), US('2024-01-08T00:00:00Z'))
  t.same((await catalog.analytics.results(on.id)).map((r) => r.result_id).at(-1), manual.result_id)
  t.equal((await catalog.analytics.results(on.id)).length, 2, 'a manual run keeps the bound too')
})
