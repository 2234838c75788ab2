// The deployment time-out of controls apps (engine/controls; issue 31): an app whose start or
// stop no edge agent answers goes to Failed after the time-out (default 60 s), with the reason
// in its status and its log; the deployment stays pending, and the agent's answer later moves
// the app as it reports. A delete no agent answers is completed (the app removed). The runtime on the SQLite catalog and a virtual clock: no test
// waits 60 s.
import t, { type Test } from 'tap'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { VirtualClock } from '../../core/clock/virtual-clock.ts'
import { startControlsApps } from '../../engine/controls/index.ts'
import { DELETING, FAILED, RUNNING, STARTING, STOPPED, STOPPING } from '../../engine/controls/lifecycle.ts'
import type { AppDeployment } from '../../engine/controls/service.ts'

async function site(t: Test, deployTimeoutMs?: number) {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  t.teardown(() => catalog.close())
  const { company, user } = await catalog.createCompanyWithAdmin('Acme', { email: 'admin@acme.test', password: 'admin-pass-1' })
  const { project } = await catalog.projects.create(company.id, { name: 'P' }, user.id)
  const cip = await catalog.componentsInProject.create(project.id, { component_id: 5, display_name: 'HC 1', tags: {} })
  const clock = new VirtualClock(Date.parse('2026-03-02T08:00:00Z') * 1000)
  const sent: AppDeployment[] = []
  const runtime = await startControlsApps({
    apps: catalog.controlsApps, projects: catalog.projects, clock, deployTimeoutMs,
    publish: async (_pid, d) => { sent.push(d) },
    reports: async () => ({ stop: async () => {} }),
  })
  t.teardown(() => runtime.stop())
  const app = await runtime.service.create({
    projectId: project.id, componentInProjectId: cip.id, algorithm: 'schedule', variation: '', name: 'Heating', description: '',
    configuration: { week: [{ days: ['mon'], time: '06:00', values: { flow_temp_setpoint: 21 } }] }, pins: { flow_temp_setpoint: 'hc1.sp' }, createdBy: 'admin@acme.test',
  })
  const find = async () => (await catalog.controlsApps.find(app.id))!
  /** Moves the clock, the sweep's work done on the way. */
  const advance = async (ms: number) => { await clock.settle(ms * 1000); while (runtime.service.busy > 0) await new Promise((r) => setImmediate(r)) }
  return { catalog, clock, runtime, service: runtime.service, app, sent, find, advance, projectId: project.id }
}

t.test('Starting with no agent answering: Failed after the default 60 s, the reason in the status and the log', async (t) => {
  const s = await site(t)
  await s.service.setRun(s.app.id, true, 'admin@acme.test')
  t.same(s.sent.map((d) => [d.revision, d.desired]), [[2, 'run']], 'deployed')
  await s.advance(55_000)
  t.equal((await s.find()).status_code, STARTING, 'still Starting before the time-out')
  await s.advance(10_000) // the sweep runs every 5 s: the start fails 60-65 s after it was sent
  const failed = await s.find()
  t.equal(failed.status_code, FAILED)
  t.equal(failed.status_reason, 'no edge agent answered the start within 60 s (revision 2 is still pending: it is sent again when the project\'s edge agent connects, and the app follows its answer)')
  t.match((await s.catalog.controlsApps.logs(s.app.id, { offset: 0, limit: 10 })).items[0], { kind: 'status_change', status_code: FAILED, message: /^Failed: no edge agent answered the start within 60 s/ })
  t.same([failed.revision, failed.confirmed_revision], [2, 0], 'the deployment stays pending')
  t.equal(s.service.counters.deploy_timeouts, 1)
  await s.advance(60_000)
  t.equal((await s.catalog.controlsApps.logs(s.app.id, { offset: 0, limit: 10 })).total, 3, 'failed once: created, run, failed')

  // The agent answers later: the app follows it.
  await s.service.onState({ projectId: s.projectId, username: 'edge-1' }, { app_id: s.app.id, revision: 2, state: 'Running' })
  t.match(await s.find(), { status_code: RUNNING, status_reason: '', confirmed_revision: 2 })
})

t.test('a configured time-out; an answer in time keeps the app from failing', async (t) => {
  const s = await site(t, 10_000)
  await s.service.setRun(s.app.id, true, 'admin@acme.test')
  await s.advance(5_000)
  await s.service.onState({ projectId: s.projectId, username: 'edge-1' }, { app_id: s.app.id, revision: 2, state: 'Running' })
  await s.advance(20_000)
  t.equal((await s.find()).status_code, RUNNING, 'answered in time: Running')
  await s.service.setRun(s.app.id, false, 'admin@acme.test')
  await s.service.setRun(s.app.id, true, 'admin@acme.test') // Stopping → Starting, revision 4, no answer
  await s.advance(9_000)
  t.equal((await s.find()).status_code, STARTING)
  await s.advance(2_000) // sweep every 1 s for a 10 s time-out
  t.match(await s.find(), { status_code: FAILED, revision: 4, status_reason: /within 10 s \(revision 4 is still pending/ })
})

t.test('Stopping with no agent answering: Failed, saying the app may still run; the agent\'s later answer moves it', async (t) => {
  const s = await site(t, 10_000)
  await s.service.setRun(s.app.id, true, 'admin@acme.test')
  await s.service.onState({ projectId: s.projectId, username: 'edge-1' }, { app_id: s.app.id, revision: 2, state: 'Running' })
  await s.service.setRun(s.app.id, false, 'admin@acme.test')
  await s.advance(9_000)
  t.equal((await s.find()).status_code, STOPPING, 'still Stopping before the time-out')
  await s.advance(2_000)
  t.match(await s.find(), { status_code: FAILED, revision: 3, confirmed_revision: 2, status_reason: 'no edge agent confirmed the stop (the app may still run on site) within 10 s (revision 3 is still pending: it is sent again when the project\'s edge agent connects, and the app follows its answer)' })
  await s.service.onState({ projectId: s.projectId, username: 'edge-1' }, { app_id: s.app.id, revision: 3, state: 'Stopped' })
  t.match(await s.find(), { status_code: STOPPED, status_reason: '', confirmed_revision: 3 })
})

t.test('Deleting with no agent answering: removed after the time-out; the agent is told at its next APPSYNC', async (t) => {
  const s = await site(t, 10_000)
  await s.service.setRun(s.app.id, true, 'admin@acme.test')
  await s.service.onState({ projectId: s.projectId, username: 'edge-1' }, { app_id: s.app.id, revision: 2, state: 'Running' })
  await s.service.setRun(s.app.id, false, 'admin@acme.test')
  await s.service.onState({ projectId: s.projectId, username: 'edge-1' }, { app_id: s.app.id, revision: 3, state: 'Stopped' })
  await s.service.remove(s.app.id, 'admin@acme.test')
  t.same(s.sent.at(-1), { ...s.sent.at(-1), revision: 4, desired: 'delete' }, 'the delete went out')
  await s.advance(9_000)
  t.equal((await s.find()).status_code, DELETING, 'still Deleting before the time-out')
  await s.advance(2_000)
  t.equal(await s.catalog.controlsApps.find(s.app.id), undefined, 'removed from the platform')
  t.equal(s.service.counters.deploy_timeouts, 1)
  s.sent.length = 0
  t.equal(await s.service.onSync({ projectId: s.projectId, username: 'edge-1' }, [{ app_id: s.app.id, revision: 3 }]), 1)
  t.match(s.sent, [{ app_id: s.app.id, revision: 4, desired: 'delete' }], 'the agent that still holds it is told to delete it')
})
