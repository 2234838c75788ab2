// Controls-app deployments (issue 31 "Done when": 100 app deployments/s from the API to the
// agent with p99 < 1 s): open-loop POST /v2/controls/app/{id}/run at a fixed rate (default
// 100/s for 10 s, each request starting another app), timed from sending the request to the
// APPDEF of that app's new revision arriving at an MQTT client logged in with the project's
// edge account (MQTT over TLS, QoS 1). The platform runs as its own process (`npm start`);
// the client (HTTP and MQTT) is this process. Medians over BENCH_RUNS runs.
// Usage: npm run bench:controls-deploy   (BENCH_RUNS=3, BENCH_RATE=100, BENCH_SECONDS=10)
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt from 'mqtt'
import { Pool } from 'undici'
import { api, basicHeader, createProject, emit, median, progress, startServer, type Server } from './lib.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const RATE = Number(process.env.BENCH_RATE ?? 100)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const APPS = RATE * SECONDS
const CONFIG = { week: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '06:00', values: { flow_temp_setpoint: 21 } }, { days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '22:00', values: { flow_temp_setpoint: 16 } }] }

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(p * s.length))]
}
const round = (x: number) => Math.round(x * 10) / 10
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function cli(dataDir: string, args: string[]): Promise<void> {
  const child = spawn(process.execPath, ['bin/lintel.js', ...args], { env: { ...process.env, LINTEL_DATA_DIR: dataDir }, stdio: ['ignore', 'ignore', 'inherit'] })
  const code = await new Promise((r) => child.once('exit', r))
  if (code !== 0) throw new Error(`lintel ${args.join(' ')}: exit ${code}`)
}

async function site(): Promise<{ server: Server; pid: number; apps: string[]; edge: mqtt.MqttClient; arrivals: Map<string, number> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lintel-bench-capp-'))
  const server = await startServer({ LINTEL_DATA_DIR: dataDir })
  const pid = await createProject(server, 'controls')
  await cli(dataDir, ['project', 'setpoints', '--id', String(pid), '--enable'])
  const project = await api(server, 'GET', `/v2/project/${pid}`)
  const prefix = `${project.load_balancing_group ?? 'lintel'}/${project.project_handle ?? `p${pid}`}`
  await api(server, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'edge', password: 'edge-password', rights: 'write', validity: 7200, edge: true })
  const edge = await mqtt.connectAsync(`mqtts://127.0.0.1:${server.mqtt.tls}`, { ca: readFileSync(server.caFile), username: 'edge', password: 'edge-password', clientId: 'bench-edge', reconnectPeriod: 0 })
  const arrivals = new Map<string, number>()
  edge.on('message', (_t, payload) => {
    const m = JSON.parse(String(payload))
    if (m.type === 'APPDEF') arrivals.set(`${m.app_id}/${m.revision}`, performance.now())
  })
  await edge.subscribeAsync(`CONTROLS/${prefix}`, { qos: 1 })
  await edge.publishAsync(`META/${prefix}`, JSON.stringify({ entity: { id: 'hc.sp', type: 'datapoint', source: 'bench' }, mode: ['add'], tags: [{ key: 'writable', value: 'true' }] }), { qos: 1 })
  await api(server, 'PUT', `/v2/datapoint?project_id=${pid}&dataPointID=hc.sp`, { setpoint_min_value: 10, setpoint_max_value: 30 })
  const cip = (await api(server, 'POST', `/v2/project/${pid}/componentInProject`, { component_id: 5 })).resource.id
  await api(server, 'POST', `/v2/project/${pid}/componentInProject/pin/datapoint`, { componentinproject_id: cip, pins: [{ pin_alphanumeric_id: 'flow_temp_setpoint', dataPointID: 'hc.sp' }] })
  const apps: string[] = []
  for (let i = 0; i < APPS; i++) apps.push((await api(server, 'POST', `/v2/controls/app?project_id=${pid}&componentinproject_id=${cip}&algorithm=schedule&name=a${i}`, CONFIG)).resource.id)
  return { server, pid, apps, edge, arrivals }
}

async function openLoop(s: Awaited<ReturnType<typeof site>>, pool: Pool) {
  const latencies: number[] = []
  let errors = 0
  const began = performance.now()
  const sent: Promise<void>[] = []
  for (let n = 0; n < s.apps.length; n++) {
    const wait = began + (n * 1000) / RATE - performance.now()
    if (wait > 1) await sleep(wait)
    const id = s.apps[n]
    const start = performance.now()
    sent.push(pool.request({ method: 'POST', path: `/v2/controls/app/${id}/run?project_id=${s.pid}&run=true`, headers: { authorization: basicHeader } })
      .then(async (res) => {
        const body = await res.body.json() as any
        if (res.statusCode !== 200 || body.affected !== true) throw new Error(JSON.stringify(body))
        // The APPDEF of revision 2: waited for up to 10 s after the answer.
        for (let i = 0; i < 10_000 && !s.arrivals.has(`${id}/2`); i++) await sleep(1)
        const at = s.arrivals.get(`${id}/2`)
        if (at === undefined) throw new Error(`no APPDEF for ${id}`)
        latencies.push(at - start)
      }).catch(() => { errors++ }))
  }
  await Promise.all(sent)
  return { latencies, errors, achieved: s.apps.length / ((performance.now() - began) / 1000) }
}

const results: { p50: number; p99: number; max: number; achieved: number; errors: number }[] = []
for (let run = 1; run <= RUNS; run++) {
  progress(`run ${run}/${RUNS}: the platform, ${APPS} schedule apps, an MQTT client as the edge`)
  const s = await site()
  const pool = new Pool(s.server.url, { connections: 32 })
  try {
    const o = await openLoop(s, pool)
    const r = { p50: round(pct(o.latencies, 0.5)), p99: round(pct(o.latencies, 0.99)), max: round(pct(o.latencies, 1)), achieved: round(o.achieved), errors: o.errors }
    progress(`  ${RATE}/s for ${SECONDS} s: p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms, achieved ${r.achieved}/s, errors ${r.errors}`)
    results.push(r)
  } finally {
    await pool.close()
    await s.edge.endAsync()
    await s.server.stop()
  }
}
emit({
  bench: 'controls-deploy', rate: RATE, seconds: SECONDS, runs: RUNS,
  p50_ms: median(results.map((r) => r.p50)), p99_ms: median(results.map((r) => r.p99)), max_ms: median(results.map((r) => r.max)),
  achieved_per_s: median(results.map((r) => r.achieved)), errors: results.reduce((n, r) => n + r.errors, 0), target: 'p99 < 1000 ms at 100/s',
})
