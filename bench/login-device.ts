// The real device (or user) of bench:login-flood, in a process of its own, so its connect
// latency is not queued behind the flood client's event loop: every second it connects with
// the right password from 127.0.0.1 and leaves again.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { connack, connectPacket, dialTcp, dialTls, DISCONNECT } from './mqtt-raw.ts'
import { httpLogin, type Outcome } from './flood-loop.ts'

export type DeviceSpec =
  | { kind: 'mqtt'; port: number; tcp: boolean; username: string; password: string; ms: number }
  | { kind: 'http'; url: string; authorization: string; ms: number }

/** MQTT: TLS from 127.0.0.1 (a full handshake; or plain TCP), CONNECT, CONNACK, DISCONNECT. */
async function mqttOnce(spec: Extract<DeviceSpec, { kind: 'mqtt' }>, n: number): Promise<Outcome> {
  const t0 = performance.now()
  try {
    const s = await (spec.tcp ? dialTcp : dialTls)({ port: spec.port, localAddress: '127.0.0.1' })
    const rc = await connack(s, connectPacket(`device-${n}`, spec.username, spec.password))
    const ms = performance.now() - t0
    if (rc === 0) s.end(DISCONNECT)
    else s.destroy()
    return { ok: rc === 0, ms, why: rc === 0 ? undefined : String(rc) }
  } catch (err) {
    return { ok: false, ms: performance.now() - t0, why: (err as Error).message }
  }
}

/** One login every second for spec.ms. */
async function loop(spec: DeviceSpec): Promise<Outcome[]> {
  const login = spec.kind === 'http' ? httpLogin(spec.url, []) : undefined
  const once = async (n: number): Promise<Outcome> => {
    if (spec.kind === 'mqtt') return mqttOnce(spec, n)
    const r = await login!('127.0.0.1', spec.authorization)
    return { ok: r.status === 200, ms: r.ms, why: r.status === 200 ? undefined : String(r.status) }
  }
  const out: Outcome[] = []
  const end = Date.now() + spec.ms
  for (let n = 0; Date.now() < end; n++) {
    const next = Date.now() + 1000
    out.push(await once(n))
    await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())))
  }
  return out
}

/** Starts the device loop in a child process; `started` resolves when its loop begins, `done` with its outcomes. */
export function runDevice(spec: DeviceSpec): { started: Promise<void>; done: Promise<Outcome[]> } {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_DEVICE_SPEC: JSON.stringify(spec) }, stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  let onStart: () => void
  const started = new Promise<void>((resolve) => { onStart = resolve })
  child.stdout.on('data', (d) => { out += d; if (out.startsWith('ready\n')) onStart() })
  const done = new Promise<Outcome[]>((resolve, reject) => child.once('exit', (code) => {
    if (code !== 0) return reject(new Error(`device process exited ${code}`))
    resolve(JSON.parse(out.slice('ready\n'.length)))
  }))
  return { started, done }
}

if (process.env.BENCH_DEVICE_SPEC && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write('ready\n')
  process.stdout.write(JSON.stringify(await loop(JSON.parse(process.env.BENCH_DEVICE_SPEC) as DeviceSpec)) + '\n')
}
