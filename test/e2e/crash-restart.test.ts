// Crashes with the real process (issue 36 item 1): the platform is killed with SIGKILL and
// started again on the same data directory.
//   - An alert notification its receiver refused before the crash is in the durable outbox:
//     after the restart it arrives, once, with the same delivery id, before the next one.
//   - An upload cut by the crash leaves its temporary file behind; the restart removes it,
//     the half file never becomes visible and the quota counts only complete files.
import t from 'tap'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ensureRunTls } from '../helpers/tls-pair.ts'
import { fileForm } from '../helpers/multipart.ts'
import { waitFor } from '../helpers/wait.ts'

const ADMIN = 'Basic ' + Buffer.from('ops@crash.test:crash-pass').toString('base64')

async function boot(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: {
      ...process.env, ...await ensureRunTls(), LINTEL_DATA_DIR: dir, LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'warn',
      LINTEL_COMPANY_NAME: 'Crash', LINTEL_ADMIN_EMAIL: 'ops@crash.test', LINTEL_ADMIN_PASSWORD: 'crash-pass', LINTEL_WEBHOOK_ALLOW: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => { out += d; const m = /listening on (http:\/\/\S+)/.exec(out); if (m) resolve(m[1]) })
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
  return { url, child }
}

async function kill(p: { child: ChildProcess }): Promise<void> {
  const exited = once(p.child, 'exit')
  p.child.kill('SIGKILL')
  await exited
}

async function call(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, { method, headers: { authorization: ADMIN, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
  return { status: res.status, body: await res.json() as any }
}

t.test('a notification refused before a kill -9 is delivered after the restart, once, with its delivery id', async (t) => {
  let accepting = false
  const calls: { delivery: string; event: { id: number; kind: string }; accepted: boolean }[] = []
  const receiver = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => { body += c })
    req.on('end', () => {
      calls.push({ delivery: String(req.headers['x-lintel-delivery']), event: JSON.parse(body).event, accepted: accepting })
      res.writeHead(accepting ? 204 : 503).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { receiver.closeAllConnections(); receiver.close(() => resolve()) }))
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`

  const dir = t.testdir()
  let p = await boot(dir)
  t.teardown(() => { p.child.kill('SIGKILL') })
  await call(p.url, 'POST', '/v2/company/project', { name: 'Alarms' })
  await call(p.url, 'POST', '/v2/project/1/timeseries', { 'ahu/temp': [{ time: '2024-04-01T08:00:00Z', value: 20 }] })
  const made = await call(p.url, 'POST', '/v2/alert/threshold?project_id=1', {
    name: 'Supply air', dataPointID: 'ahu/temp', thresholds: { warn: { upper: 26 } }, notification: { webhook: { url: hook, secret: 'a-receiver-secret-1234' } },
  })
  t.equal(made.status, 201, JSON.stringify(made.body))
  await call(p.url, 'POST', '/v2/project/1/timeseries', { 'ahu/temp': [{ time: '2024-04-01T08:01:00Z', value: 27 }] })
  await waitFor(() => calls.length >= 1, { what: 'the raise to be sent (and refused with 503) before the crash', timeoutMs: 10_000 })
  await kill(p)
  t.match(calls, [{ event: { id: 1, kind: 'raise' }, accepted: false }], 'refused once before the crash')

  accepting = true
  p = await boot(dir)
  await waitFor(() => calls.some((c) => c.accepted), { what: 'the raise stored in the outbox to be delivered after the restart', timeoutMs: 10_000 })
  // A later notification of the same receiver goes out after it (one lane, in order): once it
  // has arrived, a second copy of the raise would have arrived before it.
  await call(p.url, 'POST', '/v2/project/1/timeseries', { 'ahu/temp': [{ time: '2024-04-01T08:02:00Z', value: 23 }] })
  await waitFor(() => calls.some((c) => c.accepted && c.event.kind === 'reset'), { what: 'the reset after the restart', timeoutMs: 10_000 })
  const accepted = calls.filter((c) => c.accepted)
  t.same(accepted.map((c) => `${c.event.kind} ${c.event.id}`), ['raise 1', 'reset 2'], 'the raise from before the crash arrives once, then the reset')
  t.equal(accepted[0].delivery, calls[0].delivery, 'with the delivery id of its attempt before the crash')
})

t.test('an upload cut by kill -9: no temporary file after the restart, no half file, the quota counts complete files only', async (t) => {
  const dir = t.testdir()
  let p = await boot(dir)
  t.teardown(() => { p.child.kill('SIGKILL') })
  await call(p.url, 'POST', '/v2/company/project', { name: 'Docs' })
  const whole = fileForm('whole.txt', Buffer.from('a complete file\n'))
  const res = await fetch(`${p.url}/v2/project/1/file?folder=docs`, { method: 'POST', headers: { authorization: ADMIN, ...whole.headers }, body: new Uint8Array(whole.payload) })
  t.equal(res.status, 201)

  // A 4 MiB upload of which only the first 256 KiB are sent: it waits for the rest.
  const size = 4 * 1024 * 1024
  const form = fileForm('half.bin', Buffer.alloc(size, 7))
  const upload = request(`${p.url}/v2/project/1/file?folder=docs`, { method: 'POST', headers: { authorization: ADMIN, ...form.headers, 'content-length': String(form.payload.length) } })
  upload.on('error', () => {}) // the server dies under it
  upload.write(form.payload.subarray(0, 256 * 1024))
  const tmp = join(dir, 'files', 'tmp')
  const temps = () => readdirSync(tmp).map((f) => statSync(join(tmp, f)).size)
  await waitFor(() => temps().some((n) => n > 0), { what: 'the upload to be written to its temporary file', timeoutMs: 10_000 })
  await kill(p)
  upload.destroy()
  t.equal(temps().length, 1, 'the crash left the temporary file of the upload')

  p = await boot(dir)
  t.same(readdirSync(tmp), [], 'no temporary file is left after the restart')
  t.same((await call(p.url, 'GET', '/v2/project/1/files')).body.items.map((f: { path: string }) => f.path), ['docs/whole.txt'], 'the cut upload never became a file')
  t.same((await call(p.url, 'GET', '/v2/project/1/quota')).body.files.quota_used, { files: 1, space_bytes: 16 }, 'the quota counts the complete file only')
  const again = await fetch(`${p.url}/v2/project/1/file?folder=docs`, { method: 'POST', headers: { authorization: ADMIN, ...form.headers }, body: new Uint8Array(form.payload) })
  t.equal(again.status, 201, 'the same upload succeeds after the restart')
  t.same((await call(p.url, 'GET', '/v2/project/1/quota')).body.files.quota_used, { files: 2, space_bytes: 16 + size })
})
