// MQTT ingest (issue 4): observations/s from publish to durable store with 10 publishers,
// messages of 1 and of 500 lines, QoS 0 and 1; and, in the same run, the same load against
// Debian's Mosquitto broker (the peer: raw broker throughput, delivered to one subscriber).
// Both brokers are reached over plain TCP on loopback, so the comparison is broker work, not
// TLS. Publishers: 1-line messages by 10 `mosquitto_pub -l` processes (C, one message per
// stdin line); 500-line messages by 10 MQTT.js clients in this process.
// "Stored" for Lintel = the broker's lines_stored counter (GET /v2/system/metrics), which
// counts lines only after the store's commit.
// Usage: npm run bench:mqtt-ingest   (BENCH_RUNS=3, BENCH_ONE_LINE_MSGS=20000 per publisher, BENCH_BIG_MSGS=100 per publisher)
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt from 'mqtt'
import { api, emit, median, progress, startServer, type Server } from './lib.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const PUBLISHERS = 10
const ONE_LINE_MSGS = Number(process.env.BENCH_ONE_LINE_MSGS ?? 20_000)
const BIG_MSGS = Number(process.env.BENCH_BIG_MSGS ?? 100)
const BIG_LINES = 500
const MOSQUITTO_PORT = Number(process.env.BENCH_MOSQUITTO_PORT ?? 18830)
const T0 = 1_700_000_000_000_000_000n

interface Target { name: 'lintel' | 'mosquitto'; port: number; topic: (p: number) => string; user?: { username: string; password: string } }

function oneLineFile(dir: string, p: number): string {
  const lines: string[] = []
  for (let i = 0; i < ONE_LINE_MSGS; i++) lines.push(`bench/pub${p}/temp value=${(i % 100) / 10} ${T0 + BigInt(i) * 1_000_000_000n}`)
  const file = join(dir, `pub${p}.txt`)
  writeFileSync(file, lines.join('\n') + '\n')
  return file
}

function bigMessages(p: number): string[] {
  const msgs: string[] = []
  for (let m = 0; m < BIG_MSGS; m++) {
    const lines: string[] = []
    for (let l = 0; l < BIG_LINES; l++) lines.push(`bench/pub${p}/s${l % 50} value=${l / 10} ${T0 + BigInt(m * BIG_LINES + l) * 1_000_000_000n}`)
    msgs.push(lines.join('\n'))
  }
  return msgs
}

async function publishOneLine(t: Target, files: string[], qos: 0 | 1): Promise<void> {
  const procs: ChildProcess[] = files.map((file, p) => {
    const args = ['-h', '127.0.0.1', '-p', String(t.port), '-q', String(qos), '-t', t.topic(p), '-l', '-i', `bench-${t.name}-${p}`]
    if (t.user) args.push('-u', t.user.username, '-P', t.user.password)
    const child = spawn('sh', ['-c', `exec mosquitto_pub ${args.map((a) => `'${a}'`).join(' ')} < '${file}'`], { stdio: ['ignore', 'ignore', 'inherit'] })
    return child
  })
  await Promise.all(procs.map(async (c) => { const [code] = await once(c, 'exit'); if (code !== 0) throw new Error(`mosquitto_pub exited ${code}`) }))
}

async function publishBig(t: Target, messages: string[][], qos: 0 | 1): Promise<void> {
  await Promise.all(messages.map(async (msgs, p) => {
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.port}`, { clientId: `bench-big-${t.name}-${p}`, ...t.user, reconnectPeriod: 0 })
    for (const m of msgs) await c.publishAsync(t.topic(p), m, { qos })
    await c.endAsync()
  }))
}

async function startMosquitto(dir: string): Promise<ChildProcess> {
  const conf = join(dir, 'mosquitto.conf')
  writeFileSync(conf, `listener ${MOSQUITTO_PORT} 127.0.0.1\nallow_anonymous true\nmax_queued_messages 0\npersistence false\nlog_dest none\n`)
  const child = spawn(process.env.MOSQUITTO ?? '/usr/sbin/mosquitto', ['-c', conf], { stdio: 'ignore' })
  for (let i = 0; i < 50; i++) {
    try { const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${MOSQUITTO_PORT}`, { reconnectPeriod: 0 }); await c.endAsync(); return child } catch { await new Promise((r) => setTimeout(r, 100)) }
  }
  throw new Error('mosquitto did not start')
}

async function lintelStored(server: Server): Promise<number> {
  return (await api(server, 'GET', '/v2/system/metrics')).lines_stored
}

async function waitFor(cond: () => Promise<boolean>, what: string, ms = 300_000): Promise<void> {
  const end = Date.now() + ms
  while (Date.now() < end) { if (await cond()) return; await new Promise((r) => setTimeout(r, 20)) }
  throw new Error(`timeout waiting for ${what}`)
}

const dir = mkdtempSync(join(tmpdir(), 'lintel-mqtt-bench-'))
const oneLineFiles = Array.from({ length: PUBLISHERS }, (_, p) => oneLineFile(dir, p))
const big = Array.from({ length: PUBLISHERS }, (_, p) => bigMessages(p))
const server = await startServer({ LINTEL_MQTT_TCP_PORT: '0' })
const mosquitto = await startMosquitto(dir)
try {
  const pid = (await api(server, 'POST', '/v2/company/project', { name: 'mqtt-bench' })).resource.project.id
  const handle = (await api(server, 'GET', `/v2/project/${pid}`)).project.project_handle
  await api(server, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'bench', password: 'bench-password', rights: 'write', validity: 7200 })
  const lintel: Target = { name: 'lintel', port: server.mqtt.tcp!, topic: (p) => `lintel/${handle}/pub${p}`, user: { username: 'bench', password: 'bench-password' } }
  const peer: Target = { name: 'mosquitto', port: MOSQUITTO_PORT, topic: (p) => `bench/pub${p}` }

  for (const lines of [1, BIG_LINES]) {
    for (const qos of [0, 1] as const) {
      const msgs = PUBLISHERS * (lines === 1 ? ONE_LINE_MSGS : BIG_MSGS)
      const obs = msgs * lines
      const rates: Record<string, number[]> = { lintel: [], mosquitto: [] }
      for (let run = 1; run <= RUNS; run++) {
        for (const t of [lintel, peer]) {
          progress(`${t.name}: ${lines}-line messages, QoS ${qos}, run ${run}/${RUNS}`)
          let done: () => Promise<void>
          if (t.name === 'lintel') {
            const before = await lintelStored(server)
            done = () => waitFor(async () => (await lintelStored(server)) >= before + obs, 'lintel to store')
          } else {
            // The peer's work ends when one subscriber has received every message.
            const sub = await mqtt.connectAsync(`mqtt://127.0.0.1:${MOSQUITTO_PORT}`, { reconnectPeriod: 0 })
            await sub.subscribeAsync('bench/#', { qos })
            let got = 0
            const all = new Promise<void>((resolve) => sub.on('message', () => { if (++got === msgs) resolve() }))
            done = async () => { await all; await sub.endAsync() }
          }
          const started = process.hrtime.bigint()
          if (lines === 1) await publishOneLine(t, oneLineFiles, qos)
          else await publishBig(t, big, qos)
          await done()
          const seconds = Number(process.hrtime.bigint() - started) / 1e9
          rates[t.name].push(msgs / seconds)
          emit({ bench: 'mqtt-ingest', target: t.name, lines_per_message: lines, qos, run, messages: msgs, observations: obs, seconds: +seconds.toFixed(3),
            messages_per_s: Math.round(msgs / seconds), observations_per_s: t.name === 'lintel' ? Math.round(obs / seconds) : undefined })
        }
      }
      const l = median(rates.lintel)
      const m = median(rates.mosquitto)
      emit({ bench: 'mqtt-ingest', summary: true, lines_per_message: lines, qos, publishers: PUBLISHERS, runs: RUNS,
        lintel_messages_per_s_median: Math.round(l), lintel_observations_stored_per_s_median: Math.round(l * lines),
        mosquitto_messages_per_s_median: Math.round(m), ratio_lintel_to_mosquitto: +(l / m).toFixed(3) })
    }
  }
} finally {
  mosquitto.kill()
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
}
