// Processes of the edge agent's tests (issue 32): the Modbus test device
// (edge/simulators/modbus-device.ts) and the real `lintel edge` command, each its own process,
// stopped at the test's end.
import { spawn, type ChildProcess } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { connect } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { freePort } from './free-port.ts'
import { settleWithin, waitFor } from './wait.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const LINTEL = join(ROOT, 'bin', 'lintel.js')

export interface Proc { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> }

function track(child: ChildProcess): Proc {
  let out = '', err = ''
  child.stdout?.on('data', (d) => { out += d })
  child.stderr?.on('data', (d) => { err += d })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))))
  return { child, out: () => out, err: () => err, exited }
}

/** Teardown: SIGKILL if still running and wait for the exit, so the test's directory is not
 *  removed while the process still writes into it (tap removes it right after the teardowns). */
function stopAtEnd(t: Test, proc: Proc): void {
  t.teardown(async () => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) return
    proc.child.kill('SIGKILL')
    await settleWithin(proc.exited, { what: 'a test process to exit after SIGKILL', timeoutMs: 10_000 })
  })
}

/** The Modbus test device on a free loopback port. */
export async function modbusDevice(t: Test, args: string[] = []): Promise<{ port: number; proc: Proc }> {
  const port = await freePort()
  const proc = track(spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'edge/simulators/modbus-device.ts'), '--port', String(port), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }))
  stopAtEnd(t, proc)
  await waitFor(() => proc.out().includes('listening') || proc.child.exitCode !== null, { what: 'the Modbus test device to listen', timeoutMs: 30_000 })
  if (!proc.out().includes(`listening ${port}`)) throw new Error(`the Modbus device did not start: ${proc.err()}`)
  return { port, proc }
}

/** `lintel edge ARGS` as a long-running process (killed at the test's end if still running). */
export function edgeProcess(t: Test, args: string[], env: Record<string, string> = {}): Proc {
  const proc = track(spawn(process.execPath, [LINTEL, 'edge', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }))
  stopAtEnd(t, proc)
  return proc
}

/** `lintel edge ARGS` run to its end: exit code and output. */
export async function runEdgeCommand(t: Test, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = edgeProcess(t, args, env)
  const code = await settleWithin(proc.exited, { what: `lintel edge ${args.join(' ')} to exit`, timeoutMs: 60_000 })
  return { code, stdout: proc.out(), stderr: proc.err() }
}

/** A UDP port free on loopback right now (BACnet: the library takes port 0 for 47808). */
export async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4')
  await new Promise<void>((resolve) => s.bind(0, '127.0.0.1', resolve))
  const { port } = s.address()
  await new Promise<void>((resolve) => s.close(() => resolve()))
  return port
}

/** The BACnet device simulator (edge/simulators/bacnet-device.ts) on a free UDP port; `send` writes a stdin command. */
export async function bacnetDevice(t: Test, args: string[] = []): Promise<{ port: number; proc: Proc; send: (line: string) => void }> {
  const port = await freeUdpPort()
  const proc = track(spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'edge/simulators/bacnet-device.ts'), '--port', String(port), ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] }))
  stopAtEnd(t, proc)
  await waitFor(() => proc.out().includes('listening') || proc.child.exitCode !== null, { what: 'the BACnet device simulator to listen', timeoutMs: 30_000 })
  if (!proc.out().includes(`listening ${port}`)) throw new Error(`the BACnet device did not start: ${proc.err()}`)
  return { port, proc, send: (line) => proc.child.stdin!.write(line + '\n') }
}

/** One command to the agent's test clock (LINTEL_EDGE_TEST_CLOCK, edge/apps/test-clock.ts); its JSON answer. */
export function clockCommand(port: number, cmd: object): Promise<any> {
  return settleWithin(new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1')
    let buf = ''
    s.on('data', (d) => { buf += d; if (buf.includes('\n')) { s.end(); resolve(JSON.parse(buf)) } })
    s.on('error', reject)
    s.write(JSON.stringify(cmd) + '\n')
  }), { what: `the agent's clock to answer ${JSON.stringify(cmd)}`, timeoutMs: 60_000 })
}
