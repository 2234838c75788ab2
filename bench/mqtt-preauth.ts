// Memory held by strangers before login (issue 29 item 2, "Done when"): 1,000
// unauthenticated connections over MQTT-over-TLS and over MQTT-over-WSS, each holding a
// partial packet (a CONNECT header declaring BENCH_DECLARED bytes and BENCH_BODY_BYTES of
// them; over WSS inside a WebSocket frame that is partial too), from BENCH_SOURCES loopback
// addresses (127.0.0.2...). The server's resident memory (VmRSS of its process) before, while
// they are held, and after they are closed; target: growth while held < 64 MiB.
// First a probe with the default pre-login limits (how many of the 1,000 they let in); the
// measured runs raise LINTEL_MQTT_PREAUTH_MAX and LINTEL_MQTT_PREAUTH_SECONDS so all 1,000 are
// held. The peer in the same run: Mosquitto with TLS and WebSockets listeners, same certificate.
// A fresh server (and peer) per transport and run. NDJSON on stdout, medians of BENCH_RUNS.
// Usage: npm run bench:mqtt-preauth   (BENCH_RUNS=3, BENCH_CONNECTIONS=1000, BENCH_PEER=0 skips Mosquitto,
//   BENCH_BODY_BYTES=64000 nearly fills each packet, BENCH_TRANSPORTS=tls,wss,tcp)
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir, loadavg, cpus } from 'node:os'
import { join } from 'node:path'
import type { Socket } from 'node:net'
import { emit, median, progress, rssKb, startServer, type Server } from './lib.ts'
import { dialTcp, dialTls, dialWss, masked, packetSize, partialConnect, wsFrameHeader } from './mqtt-raw.ts'
import { makeCert, startMosquitto } from './peer-mosquitto.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const N = Number(process.env.BENCH_CONNECTIONS ?? 1000)
const SOURCES = Number(process.env.BENCH_SOURCES ?? 25)
const DECLARED = Number(process.env.BENCH_DECLARED ?? 65_000)
const BODY = Number(process.env.BENCH_BODY_BYTES ?? 10)
const PARALLEL = 20
const TARGET_MIB = 64

type Transport = 'tls' | 'wss' | 'tcp'
// tcp: the plain development listener (no Mosquitto peer there): what the packet costs without TLS.
const TRANSPORTS = (process.env.BENCH_TRANSPORTS ?? 'tls,wss').split(',') as Transport[]
interface Held { sockets: Socket[]; closed: number; failed: number; openSeconds: number }
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const mib = (kb: number) => +(kb / 1024).toFixed(1)

/** One stranger: connects, sends the start of a CONNECT and keeps the connection. */
async function stranger(transport: Transport, port: number, localAddress: string): Promise<Socket> {
  const packet = partialConnect(DECLARED, BODY)
  if (transport !== 'wss') {
    const s = await (transport === 'tcp' ? dialTcp : dialTls)({ port, localAddress })
    s.write(packet)
    return s
  }
  const s = await dialWss({ port, localAddress })
  const { header, mask } = wsFrameHeader(packetSize(DECLARED))
  s.write(Buffer.concat([header, masked(packet, mask)]))
  return s
}

async function holdMany(transport: Transport, port: number, n: number, sources: number): Promise<Held> {
  const held: Held = { sockets: [], closed: 0, failed: 0, openSeconds: 0 }
  const t0 = Date.now()
  let next = 0
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (next < n) {
      const i = next++
      try {
        const s = await stranger(transport, port, sources > 0 ? `127.0.0.${2 + (i % sources)}` : '127.0.0.1')
        s.on('error', () => {})
        s.once('close', () => { held.closed++ })
        held.sockets.push(s)
      } catch {
        held.failed++
      }
    }
  }))
  held.openSeconds = (Date.now() - t0) / 1000
  return held
}

/** RSS after it stops moving (two readings 500 ms apart within 256 KiB), at most 10 s. */
async function settledRss(pid: number): Promise<number> {
  let last = rssKb(pid)
  for (let i = 0; i < 20; i++) {
    await sleep(500)
    const now = rssKb(pid)
    if (Math.abs(now - last) < 256) return now
    last = now
  }
  return last
}

async function closeAll(h: Held): Promise<void> {
  for (const s of h.sockets) s.destroy()
  h.sockets = []
}

/** One measured phase against a process already started. */
async function phase(target: string, transport: Transport, pid: number, port: number, run: number): Promise<Record<string, number | string>> {
  const warm = await holdMany(transport, port, 20, 0)
  await closeAll(warm)
  const before = await settledRss(pid)
  const h = await holdMany(transport, port, N, SOURCES)
  await sleep(2000) // the server reads what was sent and refuses or keeps each connection
  const held = h.sockets.length - h.closed
  const closedByServer = h.closed
  const during = rssKb(pid)
  await closeAll(h)
  const after = await settledRss(pid)
  const row = {
    bench: 'mqtt-preauth', target, transport, run, attempted: N, held, closed_by_server: closedByServer, failed: h.failed, open_seconds: +h.openSeconds.toFixed(2),
    rss_before_mib: mib(before), rss_held_mib: mib(during), rss_after_mib: mib(after),
    growth_held_mib: mib(during - before), growth_after_mib: mib(after - before), kib_per_held: held > 0 ? Math.round((during - before) / held) : NaN,
    load: loadavg()[0],
  }
  emit(row)
  return row
}

const portOf = (server: Server, t: Transport): number => (t === 'tls' ? server.mqtt.tls : t === 'wss' ? server.mqtt.ws : server.mqtt.tcp!)

const tmp = mkdtempSync(join(tmpdir(), 'lintel-bench-preauth-'))
const cert = makeCert(tmp)
const tlsEnv = { LINTEL_MQTT_CERT_FILE: cert.cert, LINTEL_MQTT_KEY_FILE: cert.key }
emit({ bench: 'mqtt-preauth', machine: true, nproc: cpus().length, loadavg: loadavg().map((l) => +l.toFixed(2)), date: new Date().toISOString(), declared: DECLARED, body_bytes: BODY, sources: SOURCES })
try {
  // The default limits: how many of the 1,000 they hold (the rest is closed as it arrives).
  if (process.env.BENCH_PROBE !== '0') {
    const server = await startServer(tlsEnv)
    try {
      for (const transport of TRANSPORTS) {
        progress(`defaults probe: ${N} strangers over ${transport}`)
        const h = await holdMany(transport, portOf(server, transport), N, SOURCES)
        await sleep(1000)
        emit({ bench: 'mqtt-preauth', probe: 'default limits', transport, attempted: N, held: h.sockets.length - h.closed, closed_by_server: h.closed, failed: h.failed, open_seconds: +h.openSeconds.toFixed(2) })
        await closeAll(h)
        await sleep(1000)
      }
    } finally {
      await server.stop()
    }
  }
  const rows: Record<string, Array<Record<string, number | string>>> = {}
  const limits = { LINTEL_MQTT_PREAUTH_MAX: String(N * 2), LINTEL_MQTT_PREAUTH_SECONDS: '600' }
  for (let run = 1; run <= RUNS; run++) {
    for (const transport of TRANSPORTS) {
      progress(`run ${run}/${RUNS}: lintel, ${N} strangers over ${transport}`)
      const server = await startServer({ ...tlsEnv, ...limits, ...(transport === 'tcp' ? { LINTEL_MQTT_TCP_PORT: '0' } : {}) })
      try {
        const r = await phase('lintel', transport, server.child.pid!, portOf(server, transport), run)
        ;(rows[`lintel/${transport}`] ??= []).push(r)
      } finally {
        await server.stop()
      }
      if (process.env.BENCH_PEER === '0' || transport === 'tcp') continue
      progress(`run ${run}/${RUNS}: mosquitto, ${N} strangers over ${transport}`)
      const m = await startMosquitto(cert)
      try {
        const r = await phase('mosquitto', transport, m.pid, transport === 'tls' ? m.tls : m.ws, run)
        ;(rows[`mosquitto/${transport}`] ??= []).push(r)
      } finally {
        await m.stop()
      }
    }
  }
  for (const transport of TRANSPORTS) {
    const l = rows[`lintel/${transport}`]
    const p = rows[`mosquitto/${transport}`]
    const med = (rs: typeof l | undefined, k: string) => (rs ? median(rs.map((r) => r[k] as number)) : undefined)
    const growth = med(l, 'growth_held_mib')!
    emit({
      bench: 'mqtt-preauth', summary: true, transport, runs: RUNS, connections: N,
      held_median: med(l, 'held'), growth_held_mib_median: growth, growth_after_mib_median: med(l, 'growth_after_mib'), kib_per_held_median: med(l, 'kib_per_held'),
      target_mib: TARGET_MIB, met: growth < TARGET_MIB,
      mosquitto_held_median: med(p, 'held'), mosquitto_growth_held_mib_median: med(p, 'growth_held_mib'), mosquitto_growth_after_mib_median: med(p, 'growth_after_mib'),
      growth_per_runs: l.map((r) => r.growth_held_mib), mosquitto_growth_per_runs: p?.map((r) => r.growth_held_mib),
    })
  }
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
