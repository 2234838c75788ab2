// Controls apps end to end (issue 31 "Done when"): the platform, its TLS broker and the real
// edge agent process (`edge/main.ts --state-dir`) on the agent's test clock
// (edge/apps/test-clock.ts), so no test waits for a wall-clock switching time. A heating
// schedule in Europe/Berlin switches at the right local times across the spring change (02:30
// runs at 03:00 CEST) and skips a holiday; killed with SIGKILL and restarted on its state
// directory the agent reloads the app within a minute and runs the autumn change (02:30 once);
// the broker cut for longer than the alive time-out makes the agent write the reset value,
// and the reconnection recovers the app; the logs reach the platform once per seq, in order.
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { controlsSite, FLOW_SP, VALVE } from '../helpers/controls-site.ts'
import { cuttableProxy } from '../helpers/edge-apps-site.ts'
import { clockCommand } from '../helpers/edge-processes.ts'
import { freePort } from '../helpers/free-port.ts'
import { settleWithin, waitFor } from '../helpers/wait.ts'

const EVERY_DAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']
const CONFIG = {
  alive_timeout_s: 60,
  reset_values: { flow_temp_setpoint: 12 },
  week: [
    { days: EVERY_DAY, time: '06:00', values: { flow_temp_setpoint: 21 } },
    { days: EVERY_DAY, time: '02:30', values: { flow_temp_setpoint: 17 } },
    { days: EVERY_DAY, time: '22:00', values: { flow_temp_setpoint: 16 } },
  ],
  holiday: [],
}
const us = (iso: string) => Date.parse(iso) * 1000

t.test('a heating schedule on the real edge agent: DST changes, a holiday, SIGKILL, the broker away', async (t) => {
  const site = await controlsSite(t)
  t.equal((await site.http('PUT', `/v2/project/${site.pid}`, { time_zone: 'Europe/Berlin' })).status, 200)
  t.equal((await site.http('PUT', `/v2/project/${site.pid}/holidays`, [{ name: 'Plant holiday', date: '2026-03-30' }])).status, 200)
  const created = await site.create(CONFIG)
  t.equal(created.status, 201, JSON.stringify(created.body))
  const id = created.body.resource.id as string

  const proxy = await cuttableProxy(site.platform.broker.ports.tls)
  const stateDir = mkdtempSync(join(tmpdir(), 'lintel-edge-e2e-'))
  const children: ChildProcess[] = []
  t.teardown(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
    await proxy.close()
    rmSync(stateDir, { recursive: true, force: true })
  })
  const agent = async (startIso: string) => {
    const clockPort = await freePort()
    const child = spawn(process.execPath, ['--import', 'tsx', 'edge/main.ts', '--url', `mqtts://127.0.0.1:${proxy.port}`, '--ca', site.platform.caFile,
      '--project', `${site.group}/${site.handle}`, '--account', site.edgeAccount.username, '--points', '0', '--point', FLOW_SP, '--point', VALVE, '--state-dir', stateDir], {
      env: { ...process.env, LINTEL_EDGE_PASSWORD: site.edgeAccount.password, LINTEL_EDGE_TEST_CLOCK: String(clockPort), LINTEL_EDGE_TEST_CLOCK_START: startIso },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr!.on('data', (d) => { stderr += d })
    children.push(child)
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`the agent exited ${child.exitCode}: ${stderr}`)
      return clockCommand(clockPort, { status: true }).then((a) => a.status?.online, () => false)
    }, { what: 'the agent to connect (its clock channel reports online)', timeoutMs: 60_000, intervalMs: 100 })
    return { child, clock: (cmd: object) => clockCommand(clockPort, cmd), stderr: () => stderr }
  }
  /** The edge's log entries as the platform stored them, by seq. */
  const edgeLogs = async () => {
    const body = (await site.logs(id, '&per_page=1000')).body
    return (body.items as any[]).filter((e) => e.seq !== null).sort((a, b) => a.seq - b.seq)
  }
  const writesAfter = async (n: number, what: string) => {
    await waitFor(async () => (await edgeLogs()).filter((e) => e.type === 'write').length >= n, { what, timeoutMs: 30_000, intervalMs: 100 })
    return (await edgeLogs()).filter((e) => e.type === 'write').map((e) => [e.time, e.value])
  }

  // 1. Spring: Saturday 2026-03-28 12:00 CET; the night after loses 02:00-03:00; Monday is a holiday.
  const a1 = await agent('2026-03-28T11:00:00Z')
  t.equal((await site.run(id)).status, 200)
  await site.settled(id, (a) => a.status.code === 202, 'Running on the edge', 30_000)
  t.equal((await site.http('DELETE', `/v2/controls/app?project_id=${site.pid}&controls_app_id=${id}`)).status, 409, 'delete refused while running')
  await a1.clock({ to: us('2026-03-31T04:00:00Z') })
  t.same(await writesAfter(7, 'the spring writes'), [
    ['2026-03-28T11:00:00.000Z', 21], // in force when it started (06:00)
    ['2026-03-28T21:00:00.000Z', 16], // 22:00 CET
    ['2026-03-29T01:00:00.000Z', 17], // 02:30 does not exist: 03:00 CEST
    ['2026-03-29T04:00:00.000Z', 21], // 06:00 CEST
    ['2026-03-29T20:00:00.000Z', 16], // 22:00 CEST
    // Monday 2026-03-30, the holiday: its program is empty, nothing switches
    ['2026-03-31T00:30:00.000Z', 17], // 02:30 CEST
    ['2026-03-31T04:00:00.000Z', 21],
  ])
  const spring = await edgeLogs()
  t.ok(spring.every((e, i) => e.seq === i + 1), `seq 1..${spring.length} stored once each`)
  t.match(spring.find((e) => e.time === '2026-03-29T01:00:00.000Z'), { datapoint: FLOW_SP, priority: 13, message: /switching time 2026-03-29T03:00/ })

  // 2. SIGKILL, then a restart on the same state directory (its clock set to the autumn change).
  a1.child.kill('SIGKILL')
  await settleWithin(new Promise((r) => a1.child.once('exit', r)), { what: 'the killed agent to exit', timeoutMs: 30_000 })
  const restartedAt = Date.now()
  const a2 = await agent('2026-10-24T12:00:00Z')
  await waitFor(async () => (await edgeLogs()).some((e) => e.type === 'state' && /reloaded/.test(e.message)), { what: 'the reloaded app\'s state log', timeoutMs: 60_000, intervalMs: 100 })
  const reloadMs = Date.now() - restartedAt
  t.ok(reloadMs < 60_000, `running apps reloaded within a minute (${reloadMs} ms)`)
  await a2.clock({ to: us('2026-10-25T02:00:00Z') })
  const autumn = (await writesAfter(10, 'the autumn writes')).slice(7)
  t.same(autumn, [
    ['2026-10-24T12:00:00.000Z', 21], // in force after the reload
    ['2026-10-24T20:00:00.000Z', 16], // 22:00 CEST
    ['2026-10-25T00:30:00.000Z', 17], // 02:30 CEST; the repeated 02:30 CET (01:30Z) does not run again
  ])

  // 3. The broker away for longer than the alive time-out (60 s), then back.
  await proxy.cut()
  await waitFor(async () => (await a2.clock({ status: true })).status.online === false, { what: 'the agent to notice the lost connection', timeoutMs: 30_000, intervalMs: 100 })
  const cut = await a2.clock({ advance: 59_000_000 })
  t.equal(cut.status.apps[0].state, 'Running', 'still running before the time-out')
  const after = await a2.clock({ advance: 1_000_000 })
  t.match(after.status.apps[0], { state: 'Stopped', reason: /alive time-out of 60 s/ })
  await proxy.restore()
  await waitFor(async () => (await edgeLogs()).some((e) => e.type === 'state' && /auto-recovery/.test(e.message)), { what: 'the reset and the recovery to reach the platform', timeoutMs: 60_000, intervalMs: 100 })
  const all = await edgeLogs()
  t.ok(all.every((e, i) => e.seq === i + 1), 'seq contiguous across the SIGKILL and the outage')
  t.match(all.find((e) => e.type === 'reset'), { value: 12, time: '2026-10-25T02:01:00.000Z', datapoint: FLOW_SP, message: /alive time-out/ })
  t.match(all.at(-1), { type: 'write', value: 17, message: /auto-recovery/ }, 'the value in force written again')
  await site.settled(id, (a) => a.status.code === 202, 'Running again after the recovery', 30_000)
})
