// Resume after a stop and a start on the same data, in this process (vdp-restart.test.ts kills
// a child process instead, which coverage cannot follow): running virtual datapoints start
// again with their windows rebuilt from the store (a time range and a cron range), and one
// whose project disabled virtual datapoints meanwhile records why it could not start.
import t from 'tap'
import { loadConfig } from '../../server/config.ts'
import { start } from '../../server/main.ts'
import { basic } from '../helpers/platform.ts'
import { ensureRunTls } from '../helpers/tls-pair.ts'
import { waitFor } from '../helpers/wait.ts'

const ADMIN = { email: 'ops@resume.test', password: 'resume-pass' }
const at = (minute: number) => new Date(Date.UTC(2024, 2, 31, 0, minute)).toISOString()

t.test('stopped and started again: windows rebuilt from the store; a disabled project records the refusal', async (t) => {
  const env = {
    LINTEL_DATA_DIR: t.testdir(), LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'silent',
    LINTEL_COMPANY_NAME: 'Resume', LINTEL_ADMIN_EMAIL: ADMIN.email, LINTEL_ADMIN_PASSWORD: ADMIN.password, ...await ensureRunTls(),
  }
  let p = await start(loadConfig(env))
  let stopped = false
  t.teardown(() => (stopped ? undefined : p.stop()))
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(p.address + path, {
      method, headers: { authorization: basic(ADMIN), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return res.json() as Promise<any>
  }
  const values = async (pid: number, id: string) =>
    ((await call('GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=${id}`)).data ?? []).map((d: { value: number }) => d.value)
  const create = async (pid: number, id: string, pin: object) => {
    await call('POST', `/v2/project/${pid}/virtual_datapoint?dataPointID=${id}&type=formula`, { pins: { P1: { dataPointID: 'x', ...pin } }, parameters: { formula: 'P1' } })
    await waitFor(async () => (await call('GET', `/v2/project/${pid}/virtual_datapoint?dataPointID=${id}`)).status === 'Ready to start', { what: `${id} to be ready to start` })
    t.equal((await call('POST', `/v2/project/${pid}/virtual_datapoint/run?dataPointID=${id}&run=true`)).status, 'Running')
  }

  const a = (await call('POST', '/v2/company/project', { name: 'A' })).resource.project.id as number
  const b = (await call('POST', '/v2/company/project', { name: 'B' })).resource.project.id as number
  await create(a, 'avg10', { data_range: { time: '10m' }, aggregate: 'mean' })
  await create(a, 'morning', { data_range: { start: '0 0 * * *', end: '0 12 * * *' }, aggregate: 'sum' })
  await create(b, 'off', {})
  for (const [m, v] of [[0, 1], [1, 2], [2, 3]]) {
    await call('POST', `/v2/project/${a}/timeseries`, { x: [{ time: at(m), value: v }] })
    await call('POST', `/v2/project/${b}/timeseries`, { x: [{ time: at(m), value: v }] })
  }
  await waitFor(async () => (await values(a, 'avg10')).length === 3 && (await values(a, 'morning')).length === 3 && (await values(b, 'off')).length === 3,
    { what: 'three outputs of each virtual datapoint' })
  await p.catalog.projects.setVdpEnabled(b, false)
  stopped = true
  await p.stop()

  p = await start(loadConfig(env))
  stopped = false
  t.equal((await call('GET', `/v2/project/${a}/virtual_datapoint?dataPointID=avg10`)).status, 'Running', 'running again')
  const off = await call('GET', `/v2/project/${b}/virtual_datapoint?dataPointID=off`)
  t.match(off, { status_code: 201 }, 'not running: its project disabled virtual datapoints')
  t.equal(off.logs.at(-1).message, 'Start failed after restart: virtual datapoints are disabled for the project')

  await call('POST', `/v2/project/${a}/timeseries`, { x: [{ time: at(3), value: 4 }] })
  await waitFor(async () => (await values(a, 'avg10')).length === 4 && (await values(a, 'morning')).length === 4, { what: 'the fourth outputs' })
  t.same(await values(a, 'avg10'), [1, 1.5, 2, 2.5], 'the 10-minute window was rebuilt from the store')
  t.same(await values(a, 'morning'), [1, 3, 6, 10], 'the cron window (00:00 to 12:00) was rebuilt from the store')
})
