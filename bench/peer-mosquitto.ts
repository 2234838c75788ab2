// The peer of the issue-29 benchmarks: Debian's Mosquitto with an MQTT-over-TLS and an
// MQTT-over-secure-WebSockets listener on free loopback ports, configured in a temp folder,
// with the same certificate as the platform (so both pay the same TLS handshake).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { dialTls } from './mqtt-raw.ts'

export async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const { port } = s.address() as { port: number }
  await new Promise((resolve) => s.close(resolve))
  return port
}

/** A self-signed RSA 2048 pair (as the platform generates) in `dir`. */
export function makeCert(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem')
  const key = join(dir, 'key.pem')
  const r = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-subj', '/CN=localhost', '-days', '2'], { stdio: 'ignore' })
  if (r.status !== 0) throw new Error('openssl could not make a certificate')
  return { cert, key }
}

export interface Mosquitto { pid: number; tls: number; ws: number; stop(): Promise<void> }

export async function startMosquitto(tls: { cert: string; key: string }): Promise<Mosquitto> {
  const dir = mkdtempSync(join(tmpdir(), 'lintel-bench-mosquitto-'))
  const ports = { tls: await freePort(), ws: await freePort() }
  const conf = join(dir, 'mosquitto.conf')
  // Run as root, Mosquitto switches to the user `mosquitto`, which cannot read the temp folder.
  writeFileSync(conf, [
    `user ${userInfo().username}`,
    `listener ${ports.tls} 127.0.0.1`, `certfile ${tls.cert}`, `keyfile ${tls.key}`,
    `listener ${ports.ws} 127.0.0.1`, 'protocol websockets', `certfile ${tls.cert}`, `keyfile ${tls.key}`,
    'allow_anonymous true', 'persistence false', 'log_dest none', '',
  ].join('\n'))
  const child: ChildProcess = spawn(process.env.MOSQUITTO ?? '/usr/sbin/mosquitto', ['-c', conf], { stdio: 'ignore' })
  const stop = async () => {
    if (child.exitCode === null) { child.kill(); await once(child, 'exit') }
    rmSync(dir, { recursive: true, force: true })
  }
  for (let i = 0; i < 100; i++) {
    try {
      const s = await dialTls({ port: ports.tls })
      s.destroy()
      return { pid: child.pid!, ...ports, stop }
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  await stop()
  throw new Error('mosquitto did not start')
}
