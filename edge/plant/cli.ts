// `lintel edge --config FILE` (the configured agent, issue 32) and `lintel edge status --config
// FILE`. Mistakes in the file: one line per mistake on stderr (`lintel edge: FILE: <path>:
// <reason>`) and exit code 2, before anything connects.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { testClockFromEnv } from '../apps/test-clock.ts'
import { loadEdgeConfig } from '../config/load.ts'
import type { EdgeConfig } from '../config/schema.ts'
import type { HealthSnapshot } from './health.ts'
import { startPlant } from './run.ts'

const err = (line: string) => process.stderr.write(`lintel edge: ${line}\n`)

function configFrom(argv: string[], usage: string): { config: EdgeConfig; file: string } | number {
  const { values } = parseArgs({ args: argv, options: { config: { type: 'string' } }, strict: false })
  const file = values.config
  if (typeof file !== 'string') { err(`--config FILE is required\n${usage}`); return 2 }
  const loaded = loadEdgeConfig(file)
  if (loaded.errors.length > 0) {
    for (const e of loaded.errors) err(e.startsWith(file) ? e : `${file}: ${e}`)
    return 2
  }
  return { config: (loaded as { config: EdgeConfig }).config, file }
}

export async function runConfigured(argv: string[]): Promise<number> {
  const got = configFrom(argv, 'Usage: lintel edge --config FILE')
  if (typeof got === 'number') return got
  const { config, file } = got
  const password = process.env[config.broker.password_env]
  if (!password) { err(`${file}: broker.password_env: set ${config.broker.password_env} to the password of account ${config.broker.account}`); return 2 }
  let ca: Buffer | undefined
  if (config.broker.ca) {
    try { ca = readFileSync(config.broker.ca) } catch (e) { err(`${file}: broker.ca: cannot read ${config.broker.ca} (${(e as NodeJS.ErrnoException).code})`); return 2 }
  }
  // Listening for the signal before anything starts: a signal during the start stops the agent too.
  const signalled = new Promise<string>((resolve) => {
    for (const s of ['SIGINT', 'SIGTERM'] as const) process.once(s, () => resolve(s))
  })
  const testClock = testClockFromEnv() // end-to-end tests only (edge/apps/test-clock.ts)
  const plant = await startPlant(config, { password, ca, clock: testClock?.clock, log: (m) => err(m.replace(/^edge: /, '')) })
  await testClock?.serve(plant.apps.runner)
  const points = config.drivers.reduce((n, d) => n + d.points.length, 0)
  process.stdout.write(`lintel edge: ${config.drivers.length} driver(s), ${points} point(s); buffer in ${join(config.state_dir, 'buffer')}; broker ${config.broker.url} as ${config.broker.account}\n`)
  const signal = await signalled
  const t0 = Date.now()
  await plant.stop()
  err(`${signal}: stopped in ${Date.now() - t0} ms`)
  return 0
}

/** Whether the process `pid` runs (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM' }
}

export function runStatus(argv: string[]): number {
  const got = configFrom(argv, 'Usage: lintel edge status --config FILE')
  if (typeof got === 'number') return got
  const file = join(got.config.state_dir, 'status.json')
  if (!existsSync(file)) { err(`no status yet in ${file}: the agent has not run with this configuration`); return 1 }
  const s = JSON.parse(readFileSync(file, 'utf8')) as HealthSnapshot
  const out = [
    `agent       ${alive(s.pid) ? `running (pid ${s.pid})` : `not running (last pid ${s.pid})`}, status of ${s.at}`,
    `broker      ${s.broker.url} ${s.broker.connected ? 'connected' : 'not connected'}`,
    ...s.drivers.map((d) => `driver      ${d.name}: ${d.connected ? 'connected' : 'not connected'}, ${d.pointsPolled} value(s) polled, ${d.pollErrors} poll error(s)`),
    `buffer      ${s.buffer.depth} observation(s) waiting (${s.buffer.bytes} bytes), oldest ${s.buffer.oldestAgeS} s; ${s.buffer.dropped} dropped over the bound`,
  ]
  process.stdout.write(out.join('\n') + '\n')
  return 0
}
