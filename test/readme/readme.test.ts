// The README and the guides in docs/, run as a newcomer would (issue 15 item 1, issue 30
// item 1, issue 36 item 4): ONE fresh server on a fresh data directory, started with the
// first-start variables the README names, then every runnable shell block of README.md and of
// the guides in the fixed order of DOCUMENTS below, through one bash, so that the variables
// and the data a document leaves (the tour's project 1, `$A`, `$API`, the MQTT account
// gateway-1) are there for the next, as each guide says at its top. One server across the
// documents keeps the run short (one start-up; 432 s for 160 steps at load 25 on the shared 2
// cores, most of it `npx lintel` starting npm, Node and tsx); a server per guide would repeat the set-up
// of every guide and its start-up (the order is the price: a guide reads the state the
// guides before it left).
// Every step's result is compared with what its document states (readme-blocks.ts: the output
// shown, or `# exit N, prints nothing|/regex/`); a step that states nothing fails the static
// test below, unless it only assigns literal text. At the end no process a block started may
// still run, and the README's "Starting over" block (marked `readme-test: last`) stops the
// server, waits for it and removes the data directory, and must leave neither behind.
// LINTEL_README_RECORD=<file> writes every step's status and output to <file> (JSON lines)
// and goes on after a mismatch: the way to bring a changed output into a document.
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, symlinkSync } from 'node:fs'
import { freePort } from '../helpers/free-port.ts'
import { holdsWithin, settleWithin } from '../helpers/wait.ts'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { mismatch, readmeBlocks, type Block } from './readme-blocks.ts'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
/** The documents whose blocks run, in this order (README first: its tour makes project 1). */
const DOCUMENTS = ['README.md', 'docs/access.md', 'docs/mqtt.md', 'docs/time-series.md', 'docs/documents.md',
  'docs/virtual-datapoints.md', 'docs/alerts.md', 'docs/setpoints.md', 'docs/analytics.md', 'docs/controls-apps.md', 'docs/edge.md', 'docs/console.md', 'docs/operator.md', 'docs/live.md', 'docs/metrics.md', 'docs/export.md', 'docs/haystack.md', 'docs/data-lifecycle.md']
/** Where a block may be skipped: commands that install or start servers (the test starts its own). */
const SKIPS_ALLOWED = ['README.md: Set-up on a fresh machine (Node.js 20, 22 or 24, npm, a C++ toolchain)', 'docs/scaled-mode.md: All roles on one machine']
const FIRST_START = { LINTEL_COMPANY_NAME: 'Acme', LINTEL_ADMIN_EMAIL: 'admin@acme.example', LINTEL_ADMIN_PASSWORD: 'change-me-now' }
const RECORD = process.env.LINTEL_README_RECORD
/** A command that starts the server (its comment aside): the reader's, never run here. */
const startsServer = (command: string) => /\bnpm start\b/.test(command.replace(/\s+#.*$/gm, ''))
/** A step's bound: `npx lintel` alone starts npm, Node and tsx, which takes 20 s and more when 2 cores are shared by many jobs. */
const STEP_LIMIT_MS = 60_000

const read = (doc: string) => readFileSync(join(repo, doc), 'utf8')
const guides = readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)
const blocksOf = new Map<string, Block[]>([...new Set(['README.md', ...guides])].map((doc) => [doc, readmeBlocks(read(doc))]))

t.test('the documents state what every step must give, and skip only set-up', async (t) => {
  const withBlocks = [...blocksOf].filter(([, blocks]) => blocks.some((b) => b.run !== 'skip')).map(([doc]) => doc)
  t.same(withBlocks.filter((doc) => !DOCUMENTS.includes(doc)), [], 'a guide with runnable blocks has its place in DOCUMENTS')
  for (const doc of DOCUMENTS) t.ok(blocksOf.get(doc)?.some((b) => b.run === 'yes'), `${doc} has runnable blocks`)
  const skipped = [...blocksOf].flatMap(([doc, blocks]) => blocks.filter((b) => b.run === 'skip').map((b) => `${doc}: ${b.section}`))
  t.same([...new Set(skipped)].filter((s) => !SKIPS_ALLOWED.includes(s)), [], 'blocks are skipped only where servers are installed or started')
  const last = [...blocksOf].flatMap(([doc, blocks]) => blocks.filter((b) => b.run === 'last').map((b) => `${doc}: ${b.subsection}`))
  t.same(last, ['README.md: Starting over'], 'one block runs last: the README\'s "Starting over"')
  const silent = [...blocksOf].flatMap(([doc, blocks]) => blocks.flatMap((b) => b.steps.filter((s) => b.run !== 'last' || !startsServer(s.command)))
    .filter((s) => s.expect === undefined && mismatch(s, { status: 0, stdout: '' }) !== null).map((s) => `${doc} line ${s.line}: ${s.command.split('\n')[0]}`))
  t.same(silent, [], 'every step shows its output or states `# exit N, prints ...`')
})

t.test('the step annotations can fail', async (t) => {
  const [block] = readmeBlocks(['```sh', 'true', '# exit 0, prints nothing', 'echo hi', '# exit 0, prints /^h/', 'curl -s x', '# {"a":1,...}', 'A=1 B=\'x y\'', 'B=$(false)', '```'].join('\n'))
  const [none, hi, json, literal, substituted] = block.steps
  t.equal(mismatch(none, { status: 0, stdout: '' }), null)
  t.match(mismatch(none, { status: 1, stdout: '' }), /exit status 1, expected 0/)
  t.match(mismatch(none, { status: 0, stdout: 'x' }), /expected nothing/)
  t.equal(mismatch(hi, { status: 0, stdout: 'hi' }), null)
  t.match(mismatch(hi, { status: 0, stdout: 'oh' }), /does not match/)
  t.equal(mismatch(json, { status: 0, stdout: '{"a":1,"b":2}' }), null)
  t.match(mismatch(json, { status: 0, stdout: '{"success":false}' }), /differs/)
  t.match(mismatch(json, { status: 22, stdout: '{"a":1}' }), /exit status 22/)
  t.equal(mismatch(literal, { status: 0, stdout: '' }), null, 'literal assignments state nothing')
  t.match(mismatch(substituted, { status: 1, stdout: '' }), /states no output/, 'an assignment that runs a command must state its result')
})

async function waitForHttp(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const answers = async () => {
    if (server.exitCode !== null) throw new Error(`server exited ${server.exitCode}:\n${log()}`)
    return fetch(url).then(() => true, () => false)
  }
  // seconds on a quiet machine; minutes when many jobs share its 2 cores
  if (!await holdsWithin(answers, { timeoutMs: 180_000, intervalMs: 200 })) throw new Error(`server did not answer within 180 s:\n${log()}`)
}

/** One bash for every document, so variables set by one block reach the next. */
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
      // The mark bash prints after the command: waited for on stdout's data, with a bound.
      let check = () => {}
      const marked = new Promise<void>((resolve) => { check = () => { if (out.includes(mark)) resolve() } })
      bash.stdout.on('data', check)
      bash.stdin.write(`${command}\n__status=$?; echo; echo "${mark} $__status"\n`)
      try {
        await settleWithin(marked, { what: 'the step', timeoutMs: STEP_LIMIT_MS })
      } catch {
        throw new Error(`command did not finish within ${STEP_LIMIT_MS / 1000} s: ${command}\n${out}\n${err}`)
      } finally {
        bash.stdout.off('data', check)
      }
      const [stdout, rest] = out.split(mark)
      return { status: Number(rest.trim().split(/\s/)[0]), stdout: stdout.trim(), stderr: err.trim() }
    },
    pid: bash.pid,
    close: () => { bash.stdin.end(); bash.kill() },
  }
}

/** The server file `npm start` runs (package.json), wherever the process shell lives. */
function serverMain(): string {
  const start = JSON.parse(read('package.json')).scripts.start as string
  const file = /(\S+\.ts)\b/.exec(start)?.[1]
  if (!file) throw new Error(`no .ts file in the start script: ${start}`)
  return join(repo, file)
}

t.test('every block of the README and the guides runs in order on a fresh installation and prints what they show', async (t) => {
  const readme = read('README.md')
  t.match(readme, `LINTEL_COMPANY_NAME=${FIRST_START.LINTEL_COMPANY_NAME} LINTEL_ADMIN_EMAIL=${FIRST_START.LINTEL_ADMIN_EMAIL} LINTEL_ADMIN_PASSWORD=${FIRST_START.LINTEL_ADMIN_PASSWORD}`,
    'the README names the first-start variables this test uses')
  const cwd = t.testdir()
  mkdirSync(join(cwd, 'node_modules', '.bin'), { recursive: true })
  symlinkSync(join(repo, 'bin', 'lintel.js'), join(cwd, 'node_modules', '.bin', 'lintel')) // `npx lintel` from the reader's directory
  symlinkSync(join(repo, 'bin'), join(cwd, 'bin')) // `node bin/lintel.js` as well
  const ports = { http: await freePort(), tls: await freePort(), ws: await freePort() }
  // The documents name ./var, the runtime data directory's default (issue 30 item 8); the test
  // names it too, so the paths the blocks use (var/tls/cert.pem) hold whatever the default is.
  const env = { ...process.env, LINTEL_DATA_DIR: 'var', LINTEL_LOG_LEVEL: 'warn', LINTEL_HTTP_PORT: String(ports.http), LINTEL_MQTT_TLS_PORT: String(ports.tls), LINTEL_MQTT_WS_PORT: String(ports.ws) }
  let serverLog = ''
  const server = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), serverMain()], { cwd, env: { ...env, ...FIRST_START }, stdio: ['ignore', 'pipe', 'pipe'] })
  server.stdout!.on('data', (d) => { serverLog += d })
  server.stderr!.on('data', (d) => { serverLog += d })
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()))
  t.teardown(() => { server.kill('SIGKILL') })
  await waitForHttp(`http://127.0.0.1:${ports.http}/v2/endpoints`, server, () => serverLog)

  const sh = shell(cwd, { ...env, PATH: `${join(cwd, 'node_modules', '.bin')}:${process.env.PATH}` })
  t.teardown(() => sh.close())
  // A failed run must not leave what the documents started behind either.
  const realCwd = realpathSync(cwd)
  t.teardown(() => { for (const p of processesIn(realCwd)) if (p.pid !== process.pid) try { process.kill(p.pid, 'SIGTERM') } catch { /* gone */ } })
  // The documents speak of the default ports; this server listens where the test put it.
  const localise = (cmd: string) => cmd
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.http}`)
    .replace(/-p 8884\b/g, `-p ${ports.tls}`)
    .replace(/-p 9001\b/g, `-p ${ports.ws}`)
  let failed = false
  const runSteps = async (doc: string, block: Block, only = (_command: string) => true) => {
    for (const step of block.steps.filter((s) => only(s.command))) {
      const label = `${doc} line ${step.line}: ${step.command.split('\n')[0].slice(0, 90)}`
      const res = await sh.run(localise(step.command))
      if (RECORD) appendFileSync(RECORD, JSON.stringify({ doc, line: step.line, command: step.command, ...res }) + '\n')
      const why = mismatch(step, res)
      t.ok(why === null, label, why === null ? {} : { why, expected: step.expect ?? '(nothing stated)', status: res.status, stdout: res.stdout, stderr: res.stderr, server: serverLog.slice(-2000) })
      if (why !== null && !RECORD) { failed = true; return } // later blocks build on this one
    }
  }

  for (const doc of DOCUMENTS) {
    for (const block of blocksOf.get(doc)!.filter((b) => b.run === 'yes')) {
      await runSteps(doc, block)
      if (failed) return
    }
  }
  // What the documents start in the background they also stop (an edge agent left running
  // would hold the reader's broker connection and terminal).
  let left: { pid: number; ppid: number; cmd: string }[] = []
  await holdsWithin(() => { // up to 15 s: a stopping process may still be closing its connections
    const all = processesIn(realCwd)
    left = all.filter((p) => !within(p, server.pid, all) && p.pid !== sh.pid)
    return left.length === 0
  }, { timeoutMs: 15_000, intervalMs: 100 })
  t.same(left, [], 'no process started by the documents is left running', left.length === 0 ? {} : { edgeLog: existsSync(join(cwd, 'edge.log')) ? readFileSync(join(cwd, 'edge.log'), 'utf8').slice(-2000) : '(none)' })

  // "Starting over": stop the server, wait until it is gone, remove the data directory (the
  // block's `npm start` is the reader's, not run here). rm -rf racing the shutdown failed
  // about half the time before the wait (issue 30 item 8).
  for (const block of blocksOf.get('README.md')!.filter((b) => b.run === 'last')) await runSteps('README.md', block, (c) => !startsServer(c))
  if (failed) return
  const stopped = !processesIn(realCwd).some((p) => p.pid === server.pid)
  t.ok(stopped, 'the server has stopped when the block goes on to remove its data', { server: serverLog.slice(-2000) })
  if (!stopped) return
  await exited // gone already: its exit event is due, not a wait for the shutdown
  t.notOk(existsSync(join(cwd, 'var')), 'the data directory is gone')
})

/** Processes whose working directory is `dir` (Linux /proc), with their parent and command lines. */
function processesIn(dir: string): { pid: number; ppid: number; cmd: string }[] {
  const found: { pid: number; ppid: number; cmd: string }[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const at = readlinkSync(`/proc/${entry}/cwd`)
      if (at !== dir && at !== `${dir} (deleted)`) continue
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      found.push({ pid: Number(entry), ppid, cmd: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim() })
    } catch { /* gone meanwhile, or not ours to read */ }
  }
  return found
}

/** Whether `p` is `root` or descends from it among `all` (the server's own helpers, e.g. tsx's esbuild service per worker thread). */
function within(p: { pid: number; ppid: number }, root: number | undefined, all: { pid: number; ppid: number }[]): boolean {
  for (let at: { pid: number; ppid: number } | undefined = p, hops = 0; at && hops < 64; at = all.find((q) => q.pid === at!.ppid), hops++) {
    if (at.pid === root) return true
  }
  return false
}
