// `npm run edge -- ...` / `npx lintel edge ...`: starts the edge agent with the simulated
// BACnet-style driver (issue 11 item 4). The password comes from LINTEL_EDGE_PASSWORD (not the
// command line, where other users of the machine could read it).
//   --url mqtts://HOST:8884   the platform's broker (TLS)
//   --ca FILE                 CA file of the broker's certificate (the platform prints it)
//   --project GROUP/HANDLE    the project's topic prefix (`lintel project list` shows it)
//   --account USERNAME        a broker account of the project with write rights, designated as its
//                             edge agent (`lintel mqtt create ... --edge`, or `"edge": true` over
//                             HTTP): the platform takes setpoint answers (SPTACK) only from such accounts
//   --points N                simulated points sim-1 .. sim-N (default 10) ...
//   --point ID                ... and/or named points (repeatable)
//   --relinquish-default V    their relinquish default (default 20)
//   --state-dir DIR           run controls apps (issue 31; edge/apps/): the apps and their unsent
//                             logs are kept in DIR and reloaded on the next start
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { systemClock } from '../core/clock/clock.ts'
import { startEdgeAgent } from './agent.ts'
import { startEdgeApps, WriteWatch } from './apps/index.ts'
import { testClockFromEnv } from './apps/test-clock.ts'
import { runDiscoverBacnet } from './drivers/bacnet/discover.ts'
import { runConfigured, runStatus } from './plant/cli.ts'
import { SimulatedBacnetDriver } from './simulated-driver.ts'

const USAGE = 'Usage: lintel edge --config FILE | lintel edge status --config FILE | lintel edge discover bacnet [--target HOST:PORT] [--local-port P] [--json]\n' +
  '       lintel edge simulate modbus|bacnet --port P   (test devices)\n' +
  '       lintel edge --url mqtts://HOST:PORT --ca FILE --project GROUP/HANDLE --account USERNAME [--points N] [--point ID]... [--relinquish-default V] [--state-dir DIR]\n' +
  '  password in LINTEL_EDGE_PASSWORD\n'

export async function runEdge(argv: string[]): Promise<number> {
  // The configured agent and its tools (issue 32, edge/plant/cli.ts); the flags below stay for the simulated driver.
  if (argv[0] === 'status') return runStatus(argv.slice(1))
  if (argv[0] === 'discover' && argv[1] === 'bacnet') return runDiscoverBacnet(argv.slice(2))
  // Device simulators (the tests' devices, for trying the agent without plant): they read their flags from process.argv and run until killed.
  if (argv[0] === 'simulate' && (argv[1] === 'modbus' || argv[1] === 'bacnet')) { await import(`./simulators/${argv[1]}-device.ts`); return new Promise<number>(() => {}) }
  if (argv.some((a) => a === '--config' || a.startsWith('--config='))) return runConfigured(argv)
  const { values } = parseArgs({
    args: argv,
    options: {
      url: { type: 'string' }, ca: { type: 'string' }, project: { type: 'string' }, account: { type: 'string' },
      points: { type: 'string' }, point: { type: 'string', multiple: true }, 'relinquish-default': { type: 'string' }, 'state-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) { process.stdout.write(USAGE); return 0 }
  const fail = (msg: string) => { process.stderr.write(`lintel edge: ${msg}\n${USAGE}`); return 2 }
  const [group, handle, ...rest] = (values.project ?? '').split('/')
  if (!group || !handle || rest.length > 0) return fail('--project must be GROUP/HANDLE')
  if (!values.url?.startsWith('mqtts://')) return fail('--url must be mqtts://HOST:PORT (TLS)')
  if (!values.account) return fail('--account is required')
  const password = process.env.LINTEL_EDGE_PASSWORD
  if (!password) return fail('set LINTEL_EDGE_PASSWORD to the account\'s password')
  const count = values.points === undefined ? (values.point ? 0 : 10) : Number(values.points)
  if (!Number.isInteger(count) || count < 0 || count > 1_000_000) return fail(`--points must be an integer from 0, got '${values.points}'`)
  const rd = values['relinquish-default'] === undefined ? 20 : Number(values['relinquish-default'])
  if (!Number.isFinite(rd)) return fail('--relinquish-default must be a number')
  const ids = [...Array.from({ length: count }, (_, i) => `sim-${i + 1}`), ...(values.point ?? [])]
  const testClock = testClockFromEnv() // end-to-end tests only (see test-clock.ts)
  const clock = testClock?.clock ?? systemClock
  // Apps and manual setpoints write through one watch: it sees their conflicts.
  const driver = new WriteWatch(new SimulatedBacnetDriver(ids.map((id) => ({ id, relinquishDefault: rd })), clock))
  const link = { url: values.url, ca: values.ca ? readFileSync(values.ca) : undefined, username: values.account, password, group, handle, log: (m: string) => process.stderr.write(m + '\n') }
  // Apps start from disk before the broker is reached: they run without it.
  const apps = values['state-dir'] ? startEdgeApps({ ...link, stateDir: values['state-dir'], driver, clock }) : undefined
  await testClock?.serve(apps?.runner)
  const agent = await startEdgeAgent({ ...link, driver })
  process.stdout.write(`lintel edge: connected to ${values.url} as ${values.account}; ${ids.length} simulated point(s) on CONTROLS/${group}/${handle}\n`)
  await new Promise<void>((resolve) => {
    for (const s of ['SIGINT', 'SIGTERM'] as const) process.once(s, () => resolve())
  })
  await apps?.stop()
  await agent.stop()
  return 0
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runEdge(process.argv.slice(2)).then((code) => process.exit(code), (err) => {
    process.stderr.write(`lintel edge: ${(err as Error).message}\n`)
    process.exit(1)
  })
}
