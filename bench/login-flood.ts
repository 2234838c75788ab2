// Login flood against one account (issue 29 item 1, "Done when"): BENCH_RATE (1,000) wrong-
// password MQTT CONNECTs a second for the device's username, from BENCH_SOURCES other loopback
// addresses (127.0.0.2...), over MQTT-over-TLS, for BENCH_SECONDS (30); meanwhile the real
// device connects with its right password from its known address (127.0.0.1) every second,
// waits for its CONNACK and disconnects. Before the flood, the same device loop alone for
// BENCH_QUIET_SECONDS (10): its latency without the flood, side by side. Reported: attempts/s
// answered, the device's connects accepted and refused (target: never refused), its connect
// latency (TLS handshake + CONNECT → CONNACK) p50/p99, the server's CPU. The flood resumes
// its TLS session (as a flooder would: no RSA operation per attempt; BENCH_RESUME=0 turns it
// off); the device does a full handshake each time.
// Then the HTTP variant: the same flood of wrong Basic passwords for the bench user on
// GET /v2/user (keep-alive connections per source), the user logging in every second from
// 127.0.0.1. A fresh server per run (the throttle's windows are 5 minutes long).
// BENCH_TRANSPORT=tcp floods the plain development listener instead (no TLS: what the login
// path costs without the handshakes, which on 2 shared cores bound the TLS flood's rate).
// Usage: npm run bench:login-flood   (BENCH_RUNS=3, BENCH_ONLY=mqtt|http, BENCH_TRANSPORT=tls|tcp)
import { cpus, loadavg } from 'node:os'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN, api, basicHeader, emit, median, processCpuMs, progress, startServer, type Server } from './lib.ts'
import { connack, connectPacket, dialTcp, dialTls } from './mqtt-raw.ts'
import { flood, httpLogin } from './flood-loop.ts'
import { runDevice, type DeviceSpec } from './login-device.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30)
const QUIET_SECONDS = Number(process.env.BENCH_QUIET_SECONDS ?? 10)
const RATE = Number(process.env.BENCH_RATE ?? 1000)
const SOURCES = Number(process.env.BENCH_SOURCES ?? 19)
const RESUME = process.env.BENCH_RESUME !== '0'
const TCP = process.env.BENCH_TRANSPORT === 'tcp'
const DEVICE = { username: 'gateway-1', password: 'right-password' }
const sources = Array.from({ length: SOURCES }, (_, i) => `127.0.0.${2 + i}`)

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return +s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)].toFixed(1)
}

/** One wrong guess from `localAddress`: the CONNACK's return code, 'closed' without one, or 'error'. */
async function guessMqtt(port: number, localAddress: string, session: Buffer | undefined, n: number): Promise<string> {
  try {
    const s = await (TCP ? dialTcp : dialTls)({ port, localAddress, session })
    const rc = await connack(s, connectPacket(`flood-${n}`, DEVICE.username, 'wrong-password'))
    s.destroy()
    return String(rc)
  } catch {
    return 'error'
  }
}

function processMetrics(server: Server): Record<string, number> {
  try { return JSON.parse(readFileSync(join(server.dataDir, 'metrics.json'), 'utf8')).metrics } catch { return {} }
}

async function runOnce(kind: 'mqtt' | 'http', run: number): Promise<Record<string, unknown>> {
  const server = await startServer(TCP ? { LINTEL_MQTT_TCP_PORT: '0' } : {})
  try {
    let device: (ms: number) => DeviceSpec
    let guess: (src: string, n: number) => Promise<string>
    if (kind === 'mqtt') {
      const pid = (await api(server, 'POST', '/v2/company/project', { name: 'flood' })).resource.project.id
      await api(server, 'POST', `/v2/project/${pid}/mqttuser`, { ...DEVICE, rights: 'write', validity: 7200 })
      const port = TCP ? server.mqtt.tcp! : server.mqtt.tls
      device = (ms) => ({ kind: 'mqtt', port, tcp: TCP, ...DEVICE, ms })
      const [first] = await runDevice(device(1)).done // the device's address becomes known
      if (!first?.ok) throw new Error(`the device's first login failed: ${first?.why}`)
      const sessions = new Map<string, Buffer | undefined>()
      for (const src of TCP ? [] : sources) {
        const s = await dialTls({ port, localAddress: src })
        sessions.set(src, RESUME ? s.getSession() : undefined)
        s.destroy()
      }
      guess = (src, n) => guessMqtt(port, src, sessions.get(src), n)
    } else {
      await api(server, 'GET', '/v2/user') // the user's address (127.0.0.1) becomes known
      const wrong = 'Basic ' + Buffer.from(`${ADMIN.email}:wrong-password`).toString('base64')
      const login = httpLogin(server.url, sources)
      device = (ms) => ({ kind: 'http', url: server.url, authorization: basicHeader, ms })
      guess = async (src) => String((await login(src, wrong)).status)
    }
    progress(`${kind} run ${run}/${RUNS}: device alone for ${QUIET_SECONDS} s`)
    const quiet = await runDevice(device(QUIET_SECONDS * 1000)).done
    progress(`${kind} run ${run}/${RUNS}: ${RATE} wrong logins/s from ${SOURCES} addresses for ${SECONDS} s, the device every second`)
    const dev = runDevice(device(SECONDS * 1000))
    await dev.started
    const cpu0 = processCpuMs(server.child.pid!)
    const own0 = process.cpuUsage()
    const load = loadavg()[0]
    const [f, during] = await Promise.all([flood(RATE, SECONDS * 1000, sources, guess), dev.done])
    const cpuMs = processCpuMs(server.child.pid!) - cpu0
    const own = process.cpuUsage(own0)
    await new Promise((r) => setTimeout(r, 5500)) // the process metrics snapshot is written every 5 s
    const m = processMetrics(server)
    const ok = during.filter((o) => o.ok)
    const row = {
      bench: 'login-flood', kind, run, seconds: SECONDS, offered_per_s: RATE, sources: SOURCES, transport: kind === 'mqtt' ? (TCP ? 'tcp' : 'tls') : 'http', tls_resume: kind === 'mqtt' && !TCP ? RESUME : undefined,
      attempts_started: f.started, attempts_answered: f.answered, attempts_started_per_s: Math.round(f.started / f.seconds), attempts_answered_per_s: Math.round(f.answered / f.lastAnswerSeconds), answered_within_window: f.answeredInWindow, not_started_inflight_cap: f.skipped, answers: f.answers,
      device_connects: during.length, device_accepted: ok.length, device_refused: during.length - ok.length, device_refusals: during.filter((o) => !o.ok).map((o) => o.why),
      device_p50_ms: pct(during.map((o) => o.ms), 50), device_p99_ms: pct(during.map((o) => o.ms), 99), device_max_ms: pct(during.map((o) => o.ms), 100),
      quiet_accepted: quiet.filter((o) => o.ok).length, quiet_connects: quiet.length, quiet_p50_ms: pct(quiet.map((o) => o.ms), 50), quiet_p99_ms: pct(quiet.map((o) => o.ms), 99),
      server_cpu_percent_of_one_core: Math.round((cpuMs / (f.seconds * 1000)) * 100),
      bench_client_cpu_percent_of_one_core: Math.round(((own.user + own.system) / 1000 / (f.seconds * 1000)) * 100), load_at_start: load,
      password_checks_failed: kind === 'mqtt' ? m.connections_refused : undefined, throttled: kind === 'mqtt' ? m.connections_throttled : undefined,
      preauth_refused: kind === 'mqtt' ? m.connections_preauth_refused : undefined,
    }
    emit(row)
    return row
  } finally {
    await server.stop()
  }
}

emit({ bench: 'login-flood', machine: true, nproc: cpus().length, loadavg: loadavg().map((l) => +l.toFixed(2)), date: new Date().toISOString() })
for (const kind of ['mqtt', 'http'] as const) {
  if (process.env.BENCH_ONLY && process.env.BENCH_ONLY !== kind) continue
  const rows: Array<Record<string, any>> = []
  for (let run = 1; run <= RUNS; run++) rows.push(await runOnce(kind, run))
  const med = (k: string) => median(rows.map((r) => r[k] as number))
  emit({
    bench: 'login-flood', summary: true, kind, transport: kind === 'mqtt' ? (TCP ? 'tcp' : 'tls') : 'http', runs: RUNS, offered_per_s: RATE, seconds: SECONDS,
    attempts_answered_per_s_median: med('attempts_answered_per_s'), device_connects_total: rows.reduce((a, r) => a + r.device_connects, 0),
    device_refused_total: rows.reduce((a, r) => a + r.device_refused, 0), target_never_refused_met: rows.every((r) => r.device_refused === 0),
    device_p50_ms_median: med('device_p50_ms'), device_p99_ms_median: med('device_p99_ms'), quiet_p50_ms_median: med('quiet_p50_ms'), quiet_p99_ms_median: med('quiet_p99_ms'),
    server_cpu_percent_median: med('server_cpu_percent_of_one_core'), load_at_start: rows.map((r) => r.load_at_start),
  })
}
