// The README, run as a newcomer would (issue 15, item 1): a fresh server on a fresh data
// directory, started with the first-start variables the README names, then every runnable
// shell block in README order through one bash, each command's output compared with the
// output the README shows. A command that prints a failure envelope the README does not
// show fails the test, so a broken walk-through cannot hide behind a missing example.
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { outputMatches, readmeBlocks } from './readme-blocks.ts'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const readme = readFileSync(join(repo, 'README.md'), 'utf8')
const FIRST_START = { LINTEL_COMPANY_NAME: 'Acme', LINTEL_ADMIN_EMAIL: 'admin@acme.example', LINTEL_ADMIN_PASSWORD: 'change-me-now' }

async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const { port } = s.address() as { port: number }
  await new Promise((resolve) => s.close(resolve))
  return port
}

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
    close: () => { bash.stdin.end(); bash.kill() },
  }
}

t.test('every README block runs in order on a fresh installation and prints what the README shows', async (t) => {
  t.match(readme, `LINTEL_COMPANY_NAME=${FIRST_START.LINTEL_COMPANY_NAME} LINTEL_ADMIN_EMAIL=${FIRST_START.LINTEL_ADMIN_EMAIL} LINTEL_ADMIN_PASSWORD=${FIRST_START.LINTEL_ADMIN_PASSWORD}`,
    'the README names the first-start variables this test uses')
  const cwd = t.testdir()
  mkdirSync(join(cwd, 'node_modules', '.bin'), { recursive: true })
  symlinkSync(join(repo, 'bin', 'lintel.js'), join(cwd, 'node_modules', '.bin', 'lintel')) // `npx lintel` from the reader's directory
  const ports = { http: await freePort(), tls: await freePort(), ws: await freePort() }
  const env = { ...process.env, LINTEL_LOG_LEVEL: 'warn', LINTEL_HTTP_PORT: String(ports.http), LINTEL_MQTT_TLS_PORT: String(ports.tls), LINTEL_MQTT_WS_PORT: String(ports.ws) }
  let serverLog = ''
  const server = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), join(repo, 'api', 'main.ts')], { cwd, env: { ...env, ...FIRST_START }, stdio: ['ignore', 'pipe', 'pipe'] })
  server.stdout!.on('data', (d) => { serverLog += d })
  server.stderr!.on('data', (d) => { serverLog += d })
  t.teardown(() => { server.kill('SIGKILL') })
  await waitForHttp(`http://127.0.0.1:${ports.http}/v2/endpoints`, server, () => serverLog)

  const sh = shell(cwd, { ...env, PATH: `${join(cwd, 'node_modules', '.bin')}:${process.env.PATH}` })
  t.teardown(() => sh.close())
  // The README speaks of the default ports; this server listens where the test put it.
  const localise = (cmd: string) => cmd
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.http}`)
    .replace(/-p 8884\b/g, `-p ${ports.tls}`)
    .replace(/-p 9001\b/g, `-p ${ports.ws}`)

  const blocks = readmeBlocks(readme)
  t.ok(blocks.length >= 5, `README has runnable blocks (${blocks.length})`)
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
})
