// The edge's app runner (edge/apps/) against Mosquitto, on a virtual clock: an APPDEF runs a
// schedule (values in force, then each switching time at the app's priority), the logs reach
// the platform's side in seq order, the broker away longer than the alive time-out writes the
// reset values, reconnection recovers, a restart on the same state directory reloads the app
// and keeps counting seq, stop and delete let go of the priority.
import t from 'tap'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { edgeAppsSite, scheduleDef } from '../helpers/edge-apps-site.ts'
import { waitFor } from '../helpers/wait.ts'

const WEEK = {
  alive_timeout_s: 600,
  reset_values: { sp: 12 },
  week: [
    { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], time: '06:00', values: { sp: 21 } },
    { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], time: '02:30', values: { sp: 17 } },
    { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], time: '22:00', values: { sp: 16 } },
  ],
}

const contiguous = (logs: { seq: number }[]) => logs.every((l, i) => l.seq === i + 1)

t.test('runs the schedule across the spring DST change; logs arrive in seq order', async (t) => {
  // Saturday 2026-03-28 12:00 Berlin (CET); the night after is the spring change.
  const site = await edgeAppsSite(t, { startIso: '2026-03-28T11:00:00Z' })
  site.start()
  await site.waitOnline(true)
  await waitFor(() => site.heard.syncs.length >= 1, { what: 'APPSYNC after the connect' })
  t.same(site.heard.syncs[0].apps, [], 'a new edge holds no apps')
  await site.deploy(scheduleDef('a1', 1, WEEK))
  await site.waitState('a1', 'Running', 'APPSTATE Running')
  await site.apps.runner.idle()
  t.equal(site.slot('hc1.sp'), 21, 'the value in force (06:00) is written at priority 13')
  await site.to('2026-03-28T21:00:00Z') // 22:00 CET
  t.equal(site.slot('hc1.sp'), 16)
  await site.to('2026-03-29T00:59:00Z')
  t.equal(site.slot('hc1.sp'), 16, '02:30 does not exist on the spring day: nothing before 03:00 CEST')
  await site.to('2026-03-29T01:00:00Z') // 03:00 CEST, the next valid minute
  t.equal(site.slot('hc1.sp'), 17, 'the missing 02:30 ran at 03:00 CEST')
  await site.to('2026-03-29T04:00:00Z') // 06:00 CEST
  t.equal(site.slot('hc1.sp'), 21)
  const logs = await site.waitLogs('a1', 5, 'state + 4 writes')
  t.ok(contiguous(logs), `seq 1..n in order: ${logs.map((l) => l.seq)}`)
  t.same(logs.map((l) => [l.kind, l.value, l.time]), [
    ['state', undefined, '2026-03-28T11:00:00.000Z'],
    ['write', 21, '2026-03-28T11:00:00.000Z'],
    ['write', 16, '2026-03-28T21:00:00.000Z'],
    ['write', 17, '2026-03-29T01:00:00.000Z'],
    ['write', 21, '2026-03-29T04:00:00.000Z'],
  ])
  t.match(logs[3], { datapoint: 'hc1.sp', priority: 13, message: /switching time 2026-03-29T03:00/ })
  t.same(site.driver.read('hc1.sp').outOfService, false, 'keep-out-of-service false')
})

t.test('broker away longer than the alive time-out: reset values, buffered logs, auto-recovery on reconnection', async (t) => {
  const site = await edgeAppsSite(t, { startIso: '2026-06-01T10:00:00Z' })
  site.start()
  await site.waitOnline(true)
  await site.deploy(scheduleDef('keep', 1, WEEK))
  await site.deploy(scheduleDef('manual', 1, { ...WEEK, auto_recovery: false }, { pins: { sp: 'hc2.sp' } }))
  await site.waitState('keep', 'Running', 'keep running')
  await site.waitState('manual', 'Running', 'manual running')
  await site.apps.runner.idle()
  await site.proxy.cut()
  await site.waitOnline(false)
  await site.to('2026-06-01T10:09:00Z')
  t.equal(site.slot('hc1.sp'), 21, 'still running 9 minutes into the outage')
  await site.to('2026-06-01T10:10:00Z')
  t.equal(site.slot('hc1.sp'), 12, 'reset value written after the alive time-out (600 s)')
  t.equal(site.slot('hc2.sp'), 12)
  t.ok(site.apps.outbox.size >= 4, `logs buffered while the broker is away (${site.apps.outbox.size})`)
  await site.to('2026-06-01T20:00:00Z') // 22:00 CEST passes: a suspended app does not switch
  t.equal(site.slot('hc1.sp'), 12)
  await site.proxy.restore()
  await site.waitOnline(true)
  await site.apps.runner.idle()
  t.equal(site.slot('hc1.sp'), 16, 'auto-recovery: the value in force (22:00) written again')
  t.equal(site.slot('hc2.sp'), 12, 'without auto-recovery the app stays stopped')
  const keep = await site.waitLogs('keep', 6, 'the buffered logs and the recovery')
  t.ok(contiguous(keep), `seq contiguous: ${keep.map((l) => l.seq)}`)
  t.same(keep.map((l) => l.kind), ['state', 'write', 'state', 'reset', 'state', 'write'], 'each state change before the writes it causes')
  t.match(keep[3], { value: 12, time: '2026-06-01T10:10:00.000Z', message: /alive time-out of 600 s/ })
  t.match(site.apps.runner.status().apps.find((a) => a.app_id === 'manual'), { state: 'Stopped', reason: /alive time-out/ })
  await waitFor(() => site.heard.syncs.length >= 2, { what: 'APPSYNC after the reconnection' })
  t.same(site.heard.syncs.at(-1)!.apps.map((a: any) => a.app_id).sort(), ['keep', 'manual'])
})

t.test('a restart on the same state directory reloads the app and continues its seq', async (t) => {
  const site = await edgeAppsSite(t, { startIso: '2026-10-24T12:00:00Z' })
  site.start()
  await site.waitOnline(true)
  await site.deploy(scheduleDef('a1', 1, WEEK))
  await site.waitLogs('a1', 2, 'state and the first write')
  // The process "dies": nothing is stopped or saved; a new runner opens the same directory.
  await site.apps.link.client.endAsync(true)
  site.start(true)
  await site.waitOnline(true)
  await site.apps.runner.idle()
  t.equal(site.slot('hc1.sp'), 21, 'the reloaded app wrote its value in force to the fresh device')
  // Autumn change: 02:30 happens twice (00:30Z CEST and 01:30Z CET); it runs once.
  await site.to('2026-10-25T02:00:00Z')
  const logs = await site.waitLogs('a1', 6, 'reload + 22:00 + 02:30')
  t.ok(contiguous(logs), `seq contiguous across the restart: ${logs.map((l) => l.seq)}`)
  t.same(logs.filter((l) => l.kind === 'write').map((l) => [l.time, l.value]), [
    ['2026-10-24T12:00:00.000Z', 21], ['2026-10-24T12:00:00.000Z', 21], ['2026-10-24T20:00:00.000Z', 16], ['2026-10-25T00:30:00.000Z', 17],
  ])
  t.match(logs[2], { kind: 'state', message: /reloaded after the agent's restart/ })
})

t.test('conflicts, stop, delete, stale revisions and refused definitions', async (t) => {
  const site = await edgeAppsSite(t, { startIso: '2026-06-01T10:00:00Z' })
  site.start()
  await site.waitOnline(true)
  await site.deploy(scheduleDef('a', 1, WEEK))
  await site.waitState('a', 'Running', 'a running')
  await site.deploy(scheduleDef('b', 1, { week: [{ days: ['mon'], time: '00:00', values: { sp: 30 } }] }))
  await site.waitState('b', 'Running', 'b running')
  await site.apps.runner.idle()
  await site.watch.write({ point: 'hc1.sp', value: 25, priority: 13, dryrun: false, keepOutOfService: false }) // a manual NEWSPT
  const conflictLogs = () => site.heard.logs.filter((l) => l.kind === 'conflict')
  await waitFor(() => conflictLogs().length >= 3, { what: 'conflict logs' })
  const conflicts = conflictLogs()
  t.same(conflicts.map((l) => [l.app_id, l.message]), [
    ['a', 'hc1.sp at priority 13 is also written by app b'],
    ['b', 'hc1.sp at priority 13 is also written by app a'],
    ['b', 'hc1.sp at priority 13 is also written by a manual setpoint (NEWSPT)'],
  ])
  await site.deploy(scheduleDef('a', 2, WEEK, { desired: 'stop' }))
  await waitFor(() => site.heard.states.some((s) => s.app_id === 'a' && s.revision === 2 && s.state === 'Stopped'), { what: 'a stopped' })
  await site.apps.runner.idle()
  t.match(site.logsOf('a').find((l) => l.kind === 'reset'), { value: 12, message: /stopped by the platform/ })
  await site.deploy(scheduleDef('a', 1, WEEK)) // an old revision arriving late
  await waitFor(() => site.heard.states.filter((s) => s.app_id === 'a' && s.revision === 2).length >= 2, { what: 'the answer to a stale APPDEF' })
  t.equal(site.apps.runner.status().apps.find((x) => x.app_id === 'a')?.state, 'Stopped', 'a stale revision changes nothing')
  await site.deploy(scheduleDef('b', 2, {}, { desired: 'delete' }))
  await site.waitState('b', 'Deleted', 'b deleted')
  await site.apps.runner.idle()
  t.notOk(existsSync(join(site.stateDir, 'apps', 'b.json')), 'gone from disk')
  t.same(readdirSync(join(site.stateDir, 'apps')), ['a.json'])
  await site.deploy({ ...scheduleDef('c', 1, WEEK), pins: { sp: 'nowhere.sp' } })
  await waitFor(() => site.heard.states.some((s) => s.app_id === 'c' && s.state === 'Failed'), { what: 'c failed' })
  t.match(site.heard.states.find((s) => s.app_id === 'c'), { reason: /not a point of this edge device: nowhere.sp/ })
  await site.platform.publishAsync(site.topic, JSON.stringify({ ...scheduleDef('d', 1, WEEK), configuration: { week: [] } }), { qos: 1 })
  await waitFor(() => site.heard.states.some((s) => s.app_id === 'd'), { what: 'd refused' })
  t.match(site.heard.states.find((s) => s.app_id === 'd'), { state: 'Failed', reason: /APPDEF: configuration.week must hold at least one switching time/ })
})
