// Storage-first restart (issue 5 item 5): kill -9 the platform while virtual datapoints run,
// start it again on the same data: they run again, windows are rebuilt from the store, and
// outputs continue as if nothing happened (no gap, no double-counted counter).
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'

const ADMIN = 'Basic ' + Buffer.from('ops@restart.test:restart-pass').toString('base64')

async function boot(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    env: {
      ...process.env, LINTEL_DATA_DIR: dir, LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'warn',
      LINTEL_COMPANY_NAME: 'Restart', LINTEL_ADMIN_EMAIL: 'ops@restart.test', LINTEL_ADMIN_PASSWORD: 'restart-pass',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => { out += d; const m = /listening on (http:\/\/\S+)/.exec(out); if (m) resolve(m[1]) })
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
  return { url, child }
}

async function call(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, { method, headers: { authorization: ADMIN, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
  return res.json() as Promise<any>
}

const series = async (url: string, id: string) =>
  ((await call(url, 'GET', `/v2/datapoint/timeseries?project_id=1&dataPointID=${id}`)).data ?? []).map((d: { value: number }) => d.value)

async function until(cond: () => Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms
  while (Date.now() < end) { if (await cond()) return true; await new Promise((r) => setTimeout(r, 50)) }
  return false
}

const at = (minute: number) => new Date(Date.UTC(2024, 2, 31, 0, minute)).toISOString()

t.test('running virtual datapoints survive kill -9 and continue from the store', async (t) => {
  const dir = t.testdir()
  let p = await boot(dir)
  t.teardown(() => { p.child.kill('SIGKILL') })
  await call(p.url, 'POST', '/v2/company/project', { name: 'R' })
  const vdp = (id: string, type: string, body: object) => call(p.url, 'POST', `/v2/project/1/virtual_datapoint?dataPointID=${id}&type=${type}`, body)
  await vdp('double', 'formula', { pins: { P1: { dataPointID: 'x' } }, parameters: { formula: 'P1 * 2' } })
  await vdp('cnt', 'counter', { pins: { flow: { dataPointID: 'x' } }, parameters: { formula: 'flow' } })
  await vdp('avg10', 'formula', { pins: { P1: { dataPointID: 'x', data_range: { time: '10m' }, aggregate: 'mean' } }, parameters: { formula: 'P1' } })
  await new Promise((r) => setTimeout(r, 50))
  for (const id of ['double', 'cnt', 'avg10']) t.equal((await call(p.url, 'POST', `/v2/project/1/virtual_datapoint/run?dataPointID=${id}&run=true`)).status, 'Running')
  for (const [m, v] of [[0, 1], [1, 2], [2, 3]]) await call(p.url, 'POST', '/v2/project/1/timeseries', { x: [{ time: at(m), value: v }] })
  t.ok(await until(async () => (await series(p.url, 'cnt')).length === 3 && (await series(p.url, 'avg10')).length === 3))

  p.child.kill('SIGKILL')
  await once(p.child, 'exit')
  p = await boot(dir)
  t.equal((await call(p.url, 'GET', '/v2/project/1/virtual_datapoint?dataPointID=cnt')).status, 'Running', 'running again after the restart')

  await call(p.url, 'POST', '/v2/project/1/timeseries', { x: [{ time: at(3), value: 4 }] })
  t.ok(await until(async () => (await series(p.url, 'cnt')).length === 4 && (await series(p.url, 'avg10')).length === 4))
  t.same(await series(p.url, 'double'), [2, 4, 6, 8])
  t.same(await series(p.url, 'cnt'), [1, 3, 6, 10], 'the counter continues from its stored total, nothing counted twice')
  t.same(await series(p.url, 'avg10'), [1, 1.5, 2, 2.5], 'the 10-minute window was rebuilt from the store')
})
