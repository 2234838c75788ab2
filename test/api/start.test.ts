// `npm start` on an empty data directory: the first company and admin come from
// configuration, or a generated password is printed once; a bad value stops the start.
import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'

function startServer(env: Record<string, string>): Promise<{ out: string; stop: () => Promise<void>; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], { env: { ...process.env, LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'info', ...env } })
  let out = ''
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d
      const m = out.match(/"msg":"Server listening at http:\/\/127\.0\.0\.1:(\d+)"/)
      if (m) resolve({ out, port: Number(m[1]), stop: async () => { child.kill('SIGTERM'); await once(child, 'exit') } })
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', (d) => { out += d })
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
}

t.test('first start with a generated password, printed once', async (t) => {
  const dir = t.testdir()
  const first = await startServer({ LINTEL_DATA_DIR: dir })
  const password = first.out.match(/password: (\S+)/)![1]
  const res = await fetch(`http://127.0.0.1:${first.port}/v2/user`, { headers: { authorization: 'Basic ' + Buffer.from(`admin@lintel.local:${password}`).toString('base64') } })
  t.equal(res.status, 200)
  t.equal((await res.json()).user.email, 'admin@lintel.local')
  await first.stop()
  t.equal((first.out.match(new RegExp(password, 'g')) ?? []).length, 1, 'shown once, not logged')
  const second = await startServer({ LINTEL_DATA_DIR: dir })
  t.notMatch(second.out, /password: /, 'not shown again')
  await second.stop()
})

t.test('first start from configuration', async (t) => {
  const dir = t.testdir()
  const s = await startServer({ LINTEL_DATA_DIR: dir, LINTEL_COMPANY_NAME: 'Acme', LINTEL_ADMIN_EMAIL: 'ops@acme.test', LINTEL_ADMIN_PASSWORD: 'ops-password' })
  const res = await fetch(`http://127.0.0.1:${s.port}/v2/company`, { headers: { authorization: 'Basic ' + Buffer.from('ops@acme.test:ops-password').toString('base64') } })
  t.equal((await res.json()).company.name, 'Acme')
  t.notMatch(s.out, /ops-password/, 'the configured password is never logged')
  await s.stop()
})

t.test('a wrong value stops the start with a clear message', async (t) => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], { env: { ...process.env, LINTEL_HTTP_PORT: 'x' } })
  let err = ''
  child.stderr.on('data', (d) => { err += d })
  const [code] = await once(child, 'exit')
  t.equal(code, 2)
  t.equal(err, "Invalid configuration:\n  - LINTEL_HTTP_PORT must be an integer from 0 to 65535, got 'x'\n")
})
