// `npm start` on an empty data directory: the first company and admin come from
// configuration, or a generated password is printed once; a bad value stops the start.
// Issue 15: ignored first-start variables are said so; one server per data directory (the
// operator tool still works beside it); start-up failures are one line with exit 2 and
// create nothing; `npm start` stops on SIGTERM to its pid with nothing acknowledged lost.
import t from 'tap'
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, connect } from 'node:net'
import { join } from 'node:path'
import { waitFor } from '../helpers/wait.ts'

interface Server { out: () => string; stop: () => Promise<void>; port: number; child: ChildProcess }

function startServer(env: Record<string, string>, command: string[] = [process.execPath, '--import', 'tsx', 'server/main.ts']): Promise<Server> {
  const child = spawn(command[0], command.slice(1), { env: { ...process.env, LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'info', ...env } })
  let out = ''
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d
      const m = out.match(/"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/)
      if (m) resolve({ out: () => out, child, port: Number(m[1]), stop: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return
        const exited = once(child, 'exit')
        child.kill('SIGTERM')
        await exited
      } })
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', (d) => { out += d })
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
}

t.test('first start with a generated password, printed once', async (t) => {
  const dir = t.testdir()
  const first = await startServer({ LINTEL_DATA_DIR: dir })
  const password = first.out().match(/password: (\S+)/)![1]
  const res = await fetch(`http://127.0.0.1:${first.port}/v2/user`, { headers: { authorization: 'Basic ' + Buffer.from(`admin@lintel.local:${password}`).toString('base64') } })
  t.equal(res.status, 200)
  t.equal((await res.json()).user.email, 'admin@lintel.local')
  await first.stop()
  t.equal((first.out().match(new RegExp(password, 'g')) ?? []).length, 1, 'shown once, not logged')
  t.notMatch(first.out(), /already has companies/)
  const second = await startServer({ LINTEL_DATA_DIR: dir })
  t.notMatch(second.out(), /password: /, 'not shown again')
  t.notMatch(second.out(), /already has companies/, 'no first-start variables given: nothing to say')
  await second.stop()
  const third = await startServer({ LINTEL_DATA_DIR: dir, LINTEL_COMPANY_NAME: 'Acme', LINTEL_ADMIN_EMAIL: 'ops@acme.test', LINTEL_ADMIN_PASSWORD: 'ops-password' })
  await third.stop()
  const said = third.out().split('\n').filter((l) => l.includes('already has companies'))
  t.equal(said.length, 1, 'one line says the first-start variables are ignored')
  t.match(said[0], /LINTEL_COMPANY_NAME, LINTEL_ADMIN_EMAIL and LINTEL_ADMIN_PASSWORD are ignored/)
  t.match(said[0], /to start over, stop the server and remove the data directory/)
})

t.test('first start from configuration', async (t) => {
  const dir = t.testdir()
  const s = await startServer({ LINTEL_DATA_DIR: dir, LINTEL_COMPANY_NAME: 'Acme', LINTEL_ADMIN_EMAIL: 'ops@acme.test', LINTEL_ADMIN_PASSWORD: 'ops-password' })
  const res = await fetch(`http://127.0.0.1:${s.port}/v2/company`, { headers: { authorization: 'Basic ' + Buffer.from('ops@acme.test:ops-password').toString('base64') } })
  t.equal((await res.json()).company.name, 'Acme')
  t.notMatch(s.out(), /ops-password/, 'the configured password is never logged')
  await s.stop()
})

t.test('a wrong value stops the start with a clear message', async (t) => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { env: { ...process.env, LINTEL_HTTP_PORT: 'x' } })
  let err = ''
  child.stderr.on('data', (d) => { err += d })
  const [code] = await once(child, 'exit')
  t.equal(code, 2)
  t.equal(err, "Invalid configuration:\n  - LINTEL_HTTP_PORT must be an integer from 0 to 65535, got 'x'\n")
})

/** Runs main.ts to its exit: code, stderr and stdout. */
async function failedStart(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { env: { ...process.env, LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', ...env } })
  let err = ''
  let out = ''
  child.stderr.on('data', (d) => { err += d })
  child.stdout.on('data', (d) => { out += d })
  const [code] = await once(child, 'exit')
  return { code, err, out }
}

t.test('one server per data directory; the operator tool works beside it; a stale lock does not block', async (t) => {
  const dir = t.testdir()
  const first = await startServer({ LINTEL_DATA_DIR: dir })
  t.teardown(() => first.stop())
  const second = await failedStart({ LINTEL_DATA_DIR: dir })
  t.equal(second.code, 2)
  t.equal(second.err, `lintel: cannot start: the data directory '${dir}' is in use by another Lintel server (pid ${first.child.pid}): stop it first, or choose another LINTEL_DATA_DIR\n`)
  const cli = spawnSync(process.execPath, ['bin/lintel.js', 'company', 'list'], { env: { ...process.env, LINTEL_DATA_DIR: dir }, encoding: 'utf8' })
  t.equal(cli.status, 0, cli.stderr)
  t.equal(cli.stdout, '1\tLintel\t\n', 'the operator tool reads the running server\'s catalog')
  await first.stop()
  t.notOk(existsSync(join(dir, 'server.lock')), 'released on stop')

  // kill -9 leaves the lock file behind, with a pid that is no longer alive.
  const victim = await startServer({ LINTEL_DATA_DIR: dir })
  victim.child.kill('SIGKILL')
  await once(victim.child, 'exit')
  t.match(JSON.parse(readFileSync(join(dir, 'server.lock'), 'utf8')), { pid: victim.child.pid }, 'left behind by kill -9')
  const after = await startServer({ LINTEL_DATA_DIR: dir })
  t.match(JSON.parse(readFileSync(join(dir, 'server.lock'), 'utf8')), { pid: after.child.pid }, 'taken over')
  await after.stop()
  // A pid that is alive but belongs to another process (reused): its start time differs.
  writeFileSync(join(dir, 'server.lock'), JSON.stringify({ pid: process.pid, started: '1' }))
  const reused = await startServer({ LINTEL_DATA_DIR: dir })
  await reused.stop()
})

t.test('start-up failures: one line, exit 2, nothing created', async (t) => {
  const busy = createServer()
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
  t.teardown(() => busy.close())
  const port = (busy.address() as { port: number }).port
  const cases: [Record<string, string>, string][] = [
    [{ LINTEL_HTTP_PORT: String(port) }, `lintel: cannot start: cannot listen on 127.0.0.1:${port} (LINTEL_HTTP_PORT): the port is in use by another process\n`],
    [{ LINTEL_MQTT_TLS_PORT: String(port) }, `lintel: cannot start: cannot listen on 127.0.0.1:${port} (LINTEL_MQTT_TLS_PORT): the port is in use by another process\n`],
    [{ LINTEL_BLOBS_PORT: String(port) }, `lintel: cannot start: cannot listen on 127.0.0.1:${port} (LINTEL_BLOBS_PORT, default the HTTP port + 1): the port is in use by another process\n`],
    [{ LINTEL_HOST: 'no-such-host.invalid' }, "lintel: cannot start: cannot listen on LINTEL_HOST 'no-such-host.invalid': the name does not resolve (ENOTFOUND)\n"],
  ]
  for (const [env, line] of cases) {
    const dir = join(t.testdir(), 'data')
    const r = await failedStart({ LINTEL_DATA_DIR: dir, LINTEL_COMPANY_NAME: 'Acme', LINTEL_ADMIN_EMAIL: 'ops@acme.test', LINTEL_ADMIN_PASSWORD: 'ops-password', ...env })
    t.equal(r.code, 2, line)
    t.equal(r.err, line, 'one line, no stack trace')
    t.notOk(existsSync(join(dir, 'catalog.db')), 'checked before the catalog (and its first company) was created')
    t.notOk(existsSync(join(dir, 'server.lock')), 'the lock is released')
  }
})

t.test('npm start is the server: SIGTERM to its pid stops it gracefully, nothing acknowledged lost', async (t) => {
  const dir = t.testdir()
  const login = { LINTEL_COMPANY_NAME: 'Acme', LINTEL_ADMIN_EMAIL: 'ops@acme.test', LINTEL_ADMIN_PASSWORD: 'ops-password' }
  const auth = 'Basic ' + Buffer.from('ops@acme.test:ops-password').toString('base64')
  const npm = await startServer({ LINTEL_DATA_DIR: dir, ...login }, ['npm', 'start', '--silent'])
  t.teardown(() => { npm.child.kill('SIGKILL') })
  const base = `http://127.0.0.1:${npm.port}`
  const created = await fetch(`${base}/v2/company/project`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'P' }) })
  t.equal(created.status, 201)
  const serverPid = JSON.parse(readFileSync(join(dir, 'server.lock'), 'utf8')).pid as number

  // Writers keep posting batches; each acknowledged (200) batch must be stored.
  const acked: number[] = []
  let refused = 0
  let stopped = false
  const writer = async (w: number) => {
    for (let i = 0; !stopped; i++) {
      const batch = w * 1_000_000 + i
      const obs = Array.from({ length: 500 }, (_, k) => ({ time: new Date(Date.UTC(2024, 0, 1) + (batch % 1_000_000) * 500_000 + k * 1000 + w * 100).toISOString(), value: batch }))
      try {
        const res = await fetch(`${base}/v2/project/1/timeseries`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ [`w${w}`]: obs }) })
        if (res.status === 200) acked.push(batch)
        else refused++
        await res.arrayBuffer().catch(() => {})
      } catch {
        refused++
        return
      }
    }
  }
  const writers = [0, 1, 2, 3].map(writer)
  await waitFor(() => acked.length >= 20, { timeoutMs: 60_000, what: () => `20 acknowledged writes (${acked.length} so far)` })
  npm.child.kill('SIGTERM')
  const [code] = await once(npm.child, 'exit')
  stopped = true
  await Promise.all(writers)
  t.equal(code, 0, 'npm start exits 0')
  t.match(npm.out(), /lintel stopped on SIGTERM in \d+ ms: stopped accepting, finished requests in flight, stored all accepted observations/)
  t.throws(() => process.kill(serverPid, 0), { code: 'ESRCH' }, 'the node process behind npm is gone')
  const refusedConnect = await new Promise<string>((resolve) => {
    const s = connect(npm.port, '127.0.0.1')
    s.on('connect', () => { s.destroy(); resolve('listening') })
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'))
  })
  t.equal(refusedConnect, 'ECONNREFUSED', 'nothing listens on the port any more')
  t.notOk(existsSync(join(dir, 'server.lock')), 'the lock is released')

  const again = await startServer({ LINTEL_DATA_DIR: dir })
  t.teardown(() => again.stop())
  const stored = new Set<number>()
  for (const w of [0, 1, 2, 3]) {
    const res = await fetch(`http://127.0.0.1:${again.port}/v2/datapoint/timeseries?project_id=1&dataPointID=w${w}`, { headers: { authorization: auth } })
    for (const d of (await res.json() as { data: { value: number }[] }).data) stored.add(d.value)
  }
  const lost = acked.filter((b) => !stored.has(b))
  t.same(lost, [], `all ${acked.length} acknowledged batches are stored (${refused} refused or cut off)`)
})

t.test('SIGINT (Ctrl-C) stops as gracefully as SIGTERM, with its log line', async (t) => {
  const dir = t.testdir()
  const s = await startServer({ LINTEL_DATA_DIR: dir })
  t.teardown(() => { s.child.kill('SIGKILL') })
  s.child.kill('SIGINT')
  const [code] = await once(s.child, 'exit')
  t.equal(code, 0, 'exits 0')
  t.match(s.out(), /lintel stopped on SIGINT in \d+ ms: stopped accepting, finished requests in flight, stored all accepted observations/)
  const after = await new Promise<string>((resolve) => {
    const c = connect(s.port, '127.0.0.1')
    c.on('connect', () => { c.destroy(); resolve('listening') })
    c.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'))
  })
  t.equal(after, 'ECONNREFUSED', 'nothing listens on the port any more')
  t.notOk(existsSync(join(dir, 'server.lock')), 'the lock is released')
})
