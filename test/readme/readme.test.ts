// The README, run as a newcomer would (issue 15, item 1): a fresh server on a fresh data
// directory, started with the first-start variables the README names, then every runnable
// shell block in README order through one bash, each command's output compared with the
// output the README shows. A command that prints a failure envelope the README does not
// show fails the test, so a broken walk-through cannot hide behind a missing example.
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, symlinkSync } from 'node:fs'
import { freePort } from '../helpers/free-port.ts'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { outputMatches, readmeBlocks } from './readme-blocks.ts'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const readme = readFileSync(join(repo, 'README.md'), 'utf8')
const FIRST_START = { LINTEL_COMPANY_NAME: 'Acme', LINTEL_ADMIN_EMAIL: 'admin@acme.example', LINTEL_ADMIN_PASSWORD: 'change-me-now' }

async function waitForHttp(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const until = Date.now() + 60_000
  while (Date.now() < until) {
    if (server.exitCode !== null) throw new Error(`server exited ${server.exitCode}:\n${log()}`)
    try {
      await fetch(url)
      return
    } catch { await new Promise((r) => setTimeout(r, 200)) }
  }
  throw new Error(`server did not answer within 60 s:\n${log()}`)
}

/** One bash for the whole README, so variables set by one block reach the next. */
function shell(cwd: string, env: NodeJS.ProcessEnv) {
  const bash = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  bash.stdout.setEncoding('utf8').on('data', (d: string) => { out += d })
  bash.stderr.setEncoding('utf8').on('data', (d: string) => { err += d })
  let n = 0
  return {
    run: async (command: string): Promise<{ status: number; stdout: string; stderr: string }> => {
      const mark = `__README_STEP_${++n}_DONE__`
      out = ''
      err = ''
      bash.stdin.write(`${command}\n__status=$?; echo; echo "${mark} $__status"\n`)
      const until = Date.now() + 30_000
      while (!out.includes(mark)) {
        if (Date.now() > until) throw new Error(`command did not finish within 30 s: ${command}\n${out}\n${err}`)
        await new Promise((r) => setTimeout(r, 20))
      }
      const [stdout, rest] = out.split(mark)
      return { status: Number(rest.trim().split(/\s/)[0]), stdout: stdout.trim(), stderr: err.trim() }
    },
    pid: bash.pid,
    close: () => { bash.stdin.end(); bash.kill() },
  }
}

t.test('every README block runs in order on a fresh installation and prints what the README shows', async (t) => {
  t.match(readme, `LINTEL_COMPANY_NAME=${FIRST_START.LINTEL_COMPANY_NAME} LINTEL_ADMIN_EMAIL=${FIRST_START.LINTEL_ADMIN_EMAIL} LINTEL_ADMIN_PASSWORD=${FIRST_START.LINTEL_ADMIN_PASSWORD}`,
    'the README names the first-start variables this test uses')
  const cwd = t.testdir()
  mkdirSync(join(cwd, 'node_modules', '.bin'), { recursive: true })
  symlinkSync(join(repo, 'bin', 'lintel.js'), join(cwd, 'node_modules', '.bin', 'lintel')) // `npx lintel` from the reader's directory
  symlinkSync(join(repo, 'bin'), join(cwd, 'bin')) // `node bin/lintel.js` as well
  const ports = { http: await freePort(), tls: await freePort(), ws: await freePort() }
  const env = { ...process.env, LINTEL_LOG_LEVEL: 'warn', LINTEL_HTTP_PORT: String(ports.http), LINTEL_MQTT_TLS_PORT: String(ports.tls), LINTEL_MQTT_WS_PORT: String(ports.ws) }
  let serverLog = ''
  const server = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), join(repo, 'server', 'main.ts')], { cwd, env: { ...env, ...FIRST_START }, stdio: ['ignore', 'pipe', 'pipe'] })
  server.stdout!.on('data', (d) => { serverLog += d })
  server.stderr!.on('data', (d) => { serverLog += d })
  t.teardown(() => { server.kill('SIGKILL') })
  await waitForHttp(`http://127.0.0.1:${ports.http}/v2/endpoints`, server, () => serverLog)

  const sh = shell(cwd, { ...env, PATH: `${join(cwd, 'node_modules', '.bin')}:${process.env.PATH}` })
  t.teardown(() => sh.close())
  // A failed run must not leave what the README started behind either.
  const realCwd = realpathSync(cwd)
  t.teardown(() => { for (const p of processesIn(realCwd)) if (p.pid !== process.pid) try { process.kill(p.pid, 'SIGTERM') } catch { /* gone */ } })
  // The README speaks of the default ports; this server listens where the test put it.
  const localise = (cmd: string) => cmd
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.http}`)
    .replace(/-p 8884\b/g, `-p ${ports.tls}`)
    .replace(/-p 9001\b/g, `-p ${ports.ws}`)

  const all = readmeBlocks(readme)
  // Only the commands that install or start servers are not run here (the test starts its own).
  t.same([...new Set(all.filter((b) => b.skipped).map((b) => b.section))], ['Set-up on a fresh machine (Node.js 20, 22 or 24, npm, a C++ toolchain)', 'Scaled mode'],
    'blocks are skipped only in the set-up and scaled-mode sections')
  const blocks = all.filter((b) => !b.skipped)
  const sections = new Set(blocks.map((b) => b.section))
  for (const want of ['Walk-through', 'Time series', 'MQTT', 'Documents', 'Currency', 'Virtual datapoints', 'Alerts', 'Setpoints', 'Analytics', 'The operator tool']) {
    t.ok([...sections].some((s) => s.startsWith(want)), `the ${want} section's blocks run`)
  }
  for (const block of blocks) {
    for (const step of block.steps) {
      const label = `README line ${step.line}: ${step.command.split('\n')[0].slice(0, 90)}`
      const res = await sh.run(localise(step.command))
      const ok = res.status === 0 &&
        (step.expected === undefined ? !res.stdout.includes('"success":false') : outputMatches(step.expected, res.stdout))
      t.ok(ok, label, ok ? {} : { status: res.status, expected: step.expected ?? '(no failure envelope)', stdout: res.stdout, stderr: res.stderr, server: serverLog.slice(-2000) })
      if (!ok) return // later blocks build on this one
    }
  }
  // What the README starts in the background it also stops (an edge agent left running
  // would hold the reader's broker connection and terminal).
  let left: { pid: number; cmd: string }[] = []
  for (let i = 0; i < 150; i++) { // up to 15 s: a stopping process may still be closing its connections
    left = processesIn(realCwd).filter((p) => p.pid !== server.pid && p.pid !== sh.pid)
    if (left.length === 0) break
    await new Promise((r) => setTimeout(r, 100))
  }
  t.same(left, [], 'no process started by the README is left running', left.length === 0 ? {} : { edgeLog: existsSync(join(cwd, 'edge.log')) ? readFileSync(join(cwd, 'edge.log'), 'utf8').slice(-2000) : '(none)' })
})

/** Processes whose working directory is `dir` (Linux /proc), with their command lines. */
function processesIn(dir: string): { pid: number; cmd: string }[] {
  const found: { pid: number; cmd: string }[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const at = readlinkSync(`/proc/${entry}/cwd`)
      if (at !== dir && at !== `${dir} (deleted)`) continue
      found.push({ pid: Number(entry), cmd: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim() })
    } catch { /* gone meanwhile, or not ours to read */ }
  }
  return found
}
