// Storage-first restart (issue 5 item 5): kill -9 the platform while virtual datapoints run,
// start it again on the same data: they run again, windows are rebuilt from the store, and
// outputs continue as if nothing happened (no gap, no double-counted counter). Killed once
// after every output is stored, and once mid-stream (issue 16 item 8), with outputs still
// being computed, so the catch-up replay runs; compared with an uninterrupted run.
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { ensureRunTls } from '../helpers/tls-pair.ts'
import { waitFor } from '../helpers/wait.ts'

const ADMIN = 'Basic ' + Buffer.from('ops@restart.test:restart-pass').toString('base64')

async function boot(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env, ...await ensureRunTls(), LINTEL_DATA_DIR: dir, LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'warn',
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

const until = (cond: () => Promise<boolean>, what: string, timeoutMs = 10_000) => waitFor(cond, { what, timeoutMs, intervalMs: 50 })

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
  for (const id of ['double', 'cnt', 'avg10']) {
    await until(async () => (await call(p.url, 'GET', `/v2/project/1/virtual_datapoint?dataPointID=${id}`)).status === 'Ready to start', `${id} to be ready to start`)
  }
  for (const id of ['double', 'cnt', 'avg10']) t.equal((await call(p.url, 'POST', `/v2/project/1/virtual_datapoint/run?dataPointID=${id}&run=true`)).status, 'Running')
  for (const [m, v] of [[0, 1], [1, 2], [2, 3]]) await call(p.url, 'POST', '/v2/project/1/timeseries', { x: [{ time: at(m), value: v }] })
  await until(async () => (await series(p.url, 'cnt')).length === 3 && (await series(p.url, 'avg10')).length === 3, 'three outputs each')

  p.child.kill('SIGKILL')
  await once(p.child, 'exit')
  p = await boot(dir)
  t.equal((await call(p.url, 'GET', '/v2/project/1/virtual_datapoint?dataPointID=cnt')).status, 'Running', 'running again after the restart')

  await call(p.url, 'POST', '/v2/project/1/timeseries', { x: [{ time: at(3), value: 4 }] })
  await until(async () => (await series(p.url, 'cnt')).length === 4 && (await series(p.url, 'avg10')).length === 4, 'four outputs each')
  t.same(await series(p.url, 'double'), [2, 4, 6, 8])
  t.same(await series(p.url, 'cnt'), [1, 3, 6, 10], 'the counter continues from its stored total, nothing counted twice')
  t.same(await series(p.url, 'avg10'), [1, 1.5, 2, 2.5], 'the 10-minute window was rebuilt from the store')
})

// Mid-stream: a first batch of inputs is stored, and the process is killed as soon as the
// write is acknowledged, while the virtual datapoints are still writing its outputs; the
// second batch arrives after the restart. The outputs must equal those of an uninterrupted
// run on the same inputs: no gap, nothing twice, the counter and the window continuous.
const OUTPUTS = ['double', 'cnt', 'avg10']
const N1 = 4000
const N2 = 500
const input = (from: number, n: number) =>
  ({ x: Array.from({ length: n }, (_, i) => ({ time: new Date(Date.UTC(2024, 2, 31) + (from + i) * 60_000).toISOString(), value: ((from + i) * 7) % 13 + 1 })) })

async function setUp(url: string) {
  await call(url, 'POST', '/v2/company/project', { name: 'R' })
  const vdp = (id: string, type: string, body: object) => call(url, 'POST', `/v2/project/1/virtual_datapoint?dataPointID=${id}&type=${type}`, body)
  await vdp('double', 'formula', { pins: { P1: { dataPointID: 'x' } }, parameters: { formula: 'P1 * 2' } })
  await vdp('cnt', 'counter', { pins: { flow: { dataPointID: 'x' } }, parameters: { formula: 'flow' } })
  await vdp('avg10', 'formula', { pins: { P1: { dataPointID: 'x', data_range: { time: '10m' }, aggregate: 'mean' } }, parameters: { formula: 'P1' } })
  for (const id of OUTPUTS) {
    await until(async () => (await call(url, 'GET', `/v2/project/1/virtual_datapoint?dataPointID=${id}`)).status === 'Ready to start', `${id} to be ready to start`)
    const run = await call(url, 'POST', `/v2/project/1/virtual_datapoint/run?dataPointID=${id}&run=true`)
    if (run.status !== 'Running') throw new Error(`${id} did not start: ${JSON.stringify(run)}`)
  }
}

const post = async (url: string, body: object) => {
  const res = await call(url, 'POST', '/v2/project/1/timeseries', body)
  if (res.success !== true) throw new Error(`ingest failed: ${JSON.stringify(res)}`)
}
type Output = { time: string; value: number }
const outputs = async (url: string): Promise<Record<string, Output[]>> => Object.fromEntries(await Promise.all(OUTPUTS.map(async (id) =>
  [id, ((await call(url, 'GET', `/v2/datapoint/timeseries?project_id=1&dataPointID=${id}`)).data ?? []) as Output[]])))
const lastTime = input(N1 + N2 - 1, 1).x[0].time
const complete = (url: string) => async () => Object.values(await outputs(url)).every((d) => d.length > 0 && Date.parse(d.at(-1)!.time) === Date.parse(lastTime))

t.test('killed mid-stream, restarted: outputs equal those of an uninterrupted run', async (t) => {
  // The uninterrupted run.
  const refDir = t.testdir()
  const ref = await boot(refDir)
  t.teardown(() => { ref.child.kill('SIGKILL') })
  await setUp(ref.url)
  await post(ref.url, input(0, N1))
  await post(ref.url, input(N1, N2))
  await until(complete(ref.url), 'the uninterrupted run to compute every output', 60_000)
  const want = await outputs(ref.url)
  for (const id of OUTPUTS) t.equal(want[id].length, N1 + N2, `uninterrupted: one ${id} output per input`)

  // The kill races the writing of the outputs (a faster store wins it more often): up to
  // five tries, each in a fresh directory, until one kill lands while outputs are missing.
  const base = t.testdir()
  let dir = ''
  let p!: { url: string; child: ChildProcess }
  t.teardown(() => { p?.child.kill('SIGKILL') })
  let counts: number[] = []
  for (let attempt = 1; attempt <= 5; attempt++) {
    dir = join(base, `killed-${attempt}`)
    p = await boot(dir)
    await setUp(p.url)
    await post(p.url, input(0, N1))
    p.child.kill('SIGKILL')
    await once(p.child, 'exit')
    // What the killed process left in the store, read through the store port.
    const store = await openSqliteStore({ dir: join(dir, 'timeseries') })
    counts = await Promise.all((await store.listSeries()).map((s) => store.count(s)))
    await store.close()
    // Outputs are written in batches (engine/vdp/output-sink.ts): an output series may have
    // none yet, and a series without rows is not listed.
    if (!counts.includes(N1) || counts.length < 1 + OUTPUTS.length || counts.some((c) => c < N1)) break
  }
  t.ok(counts.includes(N1), `the ${N1} acknowledged inputs survived (series counts ${counts})`) // in every try: a loss ends the tries
  t.ok(counts.length < 1 + OUTPUTS.length || counts.some((c) => c < N1), `killed while outputs were still being written (series counts ${counts})`)

  p = await boot(dir)
  await post(p.url, input(N1, N2))
  await until(complete(p.url), 'the restarted run to reach the last input', 60_000)
  const got = await outputs(p.url)
  // Catch-up replay (engine/stream/catch-up.ts): the inputs stored after the last stored
  // output are computed on restart, so nothing is missing and nothing is there twice.
  for (const id of OUTPUTS) {
    const have = new Set(got[id].map((d) => d.time))
    const gap = want[id].filter((d) => !have.has(d.time)).length
    t.same(got[id], want[id], `${id}: same outputs as the uninterrupted run (${got[id].length} of ${want[id].length}, ${gap} missing)`)
  }
  for (const id of OUTPUTS) t.equal(new Set(got[id].map((d) => d.time)).size, got[id].length, `${id}: no output time twice`)
})
