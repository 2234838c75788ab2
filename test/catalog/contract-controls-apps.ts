// The controls-app part of the catalog port's contract (catalog/controls-apps.ts; issue 31):
// run by test/catalog/contract.ts for every adapter.
import type { Test } from 'tap'
import type { ControlsAppLogEntry, NewControlsApp } from '../../catalog/controls-apps.ts'
import type { OpenCatalog } from './contract.ts'

const E = (status: number): Error => ({ status }) as unknown as Error

const entry = (message: string, over: Partial<ControlsAppLogEntry> = {}): ControlsAppLogEntry =>
  ({ seq: null, time_us: 1_700_000_000_000_000, kind: 'status_change', message, status_code: 100, datapoint: null, value: null, priority: null, ...over })

export function controlsAppsContract(t: Test, open: OpenCatalog): void {
  const seeded = async (t: Test) => {
    const c = await open(t)
    const { company, user } = await c.createCompanyWithAdmin('Acme', { email: 'admin@acme.test', password: 'admin-pass-1' })
    const { project } = await c.projects.create(company.id, { name: 'P' }, user.id)
    const cip = await c.componentsInProject.create(project.id, { component_id: 5, display_name: 'HC 1', tags: {} })
    const app = (id: string, over: Partial<NewControlsApp> = {}): NewControlsApp => ({
      id, project_id: project.id, componentinproject_id: cip.id, algorithm: 'schedule', variation: '', name: `App ${id}`, description: '',
      configuration: { week: [{ days: ['mon'], time: '06:00', values: { flow_temp_setpoint: 21 } }] }, pins: { flow_temp_setpoint: 'hc1.sp' },
      status_code: 100, desired: 'stop', revision: 1, created_by: 'admin@acme.test', created_at: 1_700_000_000_000, ...over,
    })
    return { c, company, user, project, cip, app }
  }

  t.test('controls apps: create with the first log entry, find, list with filters and pages', async (t) => {
    const { c, project, cip, app } = await seeded(t)
    const a = await c.controlsApps.create(app('a1', { name: 'Heating', description: 'week program' }), entry('Created by admin'))
    t.match(a, {
      id: 'a1', project_id: project.id, componentinproject_id: cip.id, algorithm: 'schedule', name: 'Heating', status_code: 100, status_reason: '',
      desired: 'stop', revision: 1, confirmed_revision: 0, deployed: false, pins: { flow_temp_setpoint: 'hc1.sp' },
    })
    t.same(a.configuration, app('x').configuration, 'the configuration as given')
    t.same(await c.controlsApps.find('a1'), a)
    t.equal(await c.controlsApps.find('none'), undefined)
    await c.controlsApps.create(app('a2', { created_at: 1_700_000_000_001, name: 'Cooling 50%_off' }), entry('Created'))
    await c.controlsApps.create(app('a3', { created_at: 1_700_000_000_002, status_code: 302 }), entry('Created'))
    const page = await c.controlsApps.list(project.id, {}, { offset: 1, limit: 1 })
    t.same([page.total, page.items.map((x) => x.id)], [3, ['a2']], 'paged in creation order')
    t.same((await c.controlsApps.list(project.id, { status_code: 302 }, { offset: 0, limit: 10 })).items.map((x) => x.id), ['a3'])
    t.same((await c.controlsApps.list(project.id, { search: 'heat' }, { offset: 0, limit: 10 })).items.map((x) => x.id), ['a1'], 'search: name, case-insensitive')
    t.same((await c.controlsApps.list(project.id, { search: '50%_' }, { offset: 0, limit: 10 })).items.map((x) => x.id), ['a2'], '% and _ are literal')
    t.same((await c.controlsApps.list(project.id, { componentinproject_id: cip.id + 100 }, { offset: 0, limit: 10 })).total, 0)
    t.same((await c.controlsApps.listByProject(project.id)).map((x) => x.id), ['a1', 'a2', 'a3'])
    await t.rejects(c.controlsApps.create(app('a4', { componentinproject_id: cip.id + 100 }), entry('Created')), E(404), 'an unknown component')
  })

  t.test('controls apps: compare-and-set updates, pending deployments, remove with the log', async (t) => {
    const { c, app } = await seeded(t)
    const a = await c.controlsApps.create(app('a1'), entry('Created'))
    t.same(await c.controlsApps.listPending(), [], 'never deployed: nothing pending')
    const started = await c.controlsApps.update('a1', a, { status_code: 200, desired: 'run', revision: 2, deployed: true }, entry('Run requested', { status_code: 200, time_us: 1_700_000_001_000_000 }))
    t.match(started, { status_code: 200, desired: 'run', revision: 2, deployed: true, confirmed_revision: 0 })
    t.equal(await c.controlsApps.update('a1', a, { status_code: 300 }, entry('stale')), undefined, 'a stale revision changes nothing')
    t.same((await c.controlsApps.listPending()).map((x) => x.id), ['a1'], 'revision 2 not confirmed: pending')
    const running = await c.controlsApps.update('a1', started!, { status_code: 202, confirmed_revision: 2, status_reason: '' })
    t.match(running, { status_code: 202, confirmed_revision: 2 })
    t.same(await c.controlsApps.listPending(), [], 'confirmed: no longer pending')
    const log = await c.controlsApps.logs('a1', { offset: 0, limit: 10 })
    t.same([log.total, log.items.map((e) => e.message)], [2, ['Run requested', 'Created']], 'the stale entry was not written; newest first')
    await c.controlsApps.remove('a1')
    t.equal(await c.controlsApps.find('a1'), undefined)
    t.same((await c.controlsApps.logs('a1', { offset: 0, limit: 10 })).total, 0, 'the log went with it')
  })

  t.test('controls apps: edge log entries once per (app, seq), paged newest first', async (t) => {
    const { c, app } = await seeded(t)
    await c.controlsApps.create(app('a1'), entry('Created', { time_us: 1 }))
    const edge = (seq: number, value: number) => entry(`wrote ${value}`, { seq, kind: 'write', status_code: null, datapoint: 'hc1.sp', value, priority: 13, time_us: 1_000 + seq })
    t.equal(await c.controlsApps.addLog('a1', [edge(1, 21), edge(2, 16)]), 2)
    t.equal(await c.controlsApps.addLog('a1', [edge(2, 16), edge(3, 21)]), 1, 'seq 2 again after a reconnect: skipped')
    t.equal(await c.controlsApps.addLog('none', [edge(1, 1)]), 0, 'an unknown app stores nothing')
    const all = await c.controlsApps.logs('a1', { offset: 0, limit: 10 })
    t.same(all.items.map((e) => [e.seq, e.value]), [[3, 21], [2, 16], [1, 21], [null, null]])
    t.match(all.items[0], { kind: 'write', datapoint: 'hc1.sp', priority: 13, message: 'wrote 21', status_code: null })
    t.same((await c.controlsApps.logs('a1', { offset: 1, limit: 2 })).items.map((e) => e.seq), [2, 1])
  })

  t.test('holiday calendars: empty by default, replaced, gone with the project', async (t) => {
    const { c, project, company, user } = await seeded(t)
    t.same(await c.controlsApps.holidays(project.id), { rules: [], updated_at: null })
    const rules = [{ name: 'Christmas', date: '2026-12-24', end: '2026-12-26', yearly: true }]
    t.same(await c.controlsApps.setHolidays(project.id, rules, 5), { rules, updated_at: 5 })
    t.same(await c.controlsApps.holidays(project.id), { rules, updated_at: 5 })
    t.same((await c.controlsApps.setHolidays(project.id, [], 6)).rules, [])
    await t.rejects(c.controlsApps.setHolidays(project.id + 100, [], 7), E(404))
    const other = await c.projects.create(company.id, { name: 'Q' }, user.id)
    await c.controlsApps.setHolidays(other.project.id, rules, 8)
    await c.projects.delete(other.project.id)
    t.same(await c.controlsApps.holidays(other.project.id), { rules: [], updated_at: null }, 'cascade')
  })
}
