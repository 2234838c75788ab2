// The first "Done when" of issue 33, in the browser: a new user starts the server on an empty
// data directory (the README's first command, here without the company variables, so the
// start prints a generated password), opens the console, logs in with the printed
// credentials, creates a project, stores a first observation, and sees its chart live: a
// value posted afterwards (as a device would) appears without reloading.
import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { ensureRunTls } from '../helpers/tls-pair.ts'
import { browserFor, consolePage } from '../helpers/browser.ts'

t.test('from the first start to a live chart', async (t) => {
  const browser = await browserFor(t)
  if (!browser) return
  const env: NodeJS.ProcessEnv = { ...process.env, ...await ensureRunTls(), LINTEL_DATA_DIR: t.testdir(), LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'warn' }
  for (const k of ['LINTEL_COMPANY_NAME', 'LINTEL_ADMIN_EMAIL', 'LINTEL_ADMIN_PASSWORD']) delete env[k]
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], { env, stdio: ['ignore', 'pipe', 'inherit'] })
  t.teardown(async () => { if (child.exitCode === null) { const exited = once(child, 'exit'); child.kill('SIGTERM'); await exited } })
  let out = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => { out += d; const m = /listening on (http:\/\/\S+)/.exec(out); if (m) resolve(m[1]) })
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)))
  })
  const printed = /email:\s+(\S+)\n\s+password:\s+(\S+)/.exec(out)
  t.ok(printed, 'the first start printed the admin\'s credentials')
  const admin = { email: printed![1], password: printed![2] }

  const c = await consolePage(t, browser, url, 'first-visit')
  await c.page.goto(`${url}/`)
  await c.page.waitForSelector('form.login')
  t.equal(await c.page.title(), 'Lintel console', 'the root address is the console, asking to log in')
  await c.login(admin)
  t.match(await c.page.textContent('main'), /No project yet/)

  await c.page.fill('input[name=name]', 'Headquarters')
  await c.page.click('button:text("Create project")')
  await c.page.waitForSelector('text=No datapoint you may read yet')
  await c.page.click('summary:text("Add an observation")')
  await c.page.fill('input[name=dataPointID]', 'hall/temperature')
  await c.page.fill('input[name=value]', '21.5')
  await c.page.click('button:text("Store now and chart")')
  await c.page.waitForSelector('.live-state[data-state="live"]')
  const chart = c.page.locator('[data-testid=chart]')
  t.equal(await chart.getAttribute('data-last'), '21.5', 'the chart shows the first observation')
  t.equal(await c.page.textContent('main h1'), 'hall/temperature')

  // A device sends the next value (HTTP here; MQTT in chart-live.test.ts): it appears live.
  const pid = Number(/#\/p\/(\d+)\//.exec(c.page.url())![1])
  const res = await fetch(`${url}/v2/project/${pid}/timeseries`, {
    method: 'POST', headers: { authorization: 'Basic ' + Buffer.from(`${admin.email}:${admin.password}`).toString('base64'), 'content-type': 'application/json' },
    body: JSON.stringify({ 'hall/temperature': [{ time: new Date().toISOString(), value: 22.25 }] }),
  })
  t.equal(res.status, 200)
  await c.page.waitForFunction(() => document.querySelector('[data-testid=chart]')?.getAttribute('data-last') === '22.25', undefined, { timeout: 15_000 })
  t.equal(await chart.getAttribute('data-points'), '2', 'both observations are drawn, the second arrived live')
  await c.shot('live-chart')
  t.same(c.errors, [], 'no uncaught error in the page')
})
