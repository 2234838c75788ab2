// The controls-apps page of the console (issue 33 item 3; docs/controls-apps.md, endpoints
// 170-181), against the whole platform with the edge device simulated by a real MQTT client on
// the project's edge account: a configuration the API refuses shows its 400 one problem per
// line and creates nothing; a good one creates the app, whose page lists the resolved switching
// times of the coming days as the API resolves them; run and stop go to the edge, its answers
// and its log show; delete once stopped.
import t from 'tap'
import { browserFor, consolePage } from '../helpers/browser.ts'
import { ADMIN } from '../helpers/live-platform.ts'
import { controlsSite, FLOW_SP } from '../helpers/controls-site.ts'

t.test('controls apps in the console', async (t) => {
  const browser = await browserFor(t)
  if (!browser) return
  const site = await controlsSite(t)
  const { platform, pid, cip, edge } = site
  const c = await consolePage(t, browser, platform.address, 'controls-apps')
  await c.login(ADMIN)
  const status = () => c.page.getAttribute('main .toolbar strong[data-status]', 'data-status')
  const refreshUntil = async (code: number) => {
    for (let i = 0; i < 50 && Number(await status()) !== code; i++) {
      await c.page.click('button:text("Refresh")')
      await c.page.waitForSelector('main .toolbar strong[data-status]')
    }
    return Number(await status())
  }
  await c.page.goto(`${platform.address}/#/p/${pid}/apps`)
  await c.page.waitForSelector('text=No controls app yet.')

  await t.test('a configuration the API refuses: its problems, one per line; nothing created', async (t) => {
    await c.page.click('button:text("New schedule app")')
    await c.page.waitForSelector('textarea[name=configuration]')
    t.match(await c.page.textContent('select[name=componentinproject_id]'), /Heating circuit 1/, 'the mapped component offered')
    await c.page.fill('textarea[name=configuration]', JSON.stringify({ week: [{ days: ['mon'], time: '25:00', values: { flow_temp_setpoint: 21 } }], colour: 'red' }))
    await c.page.click('button:text("Create")')
    await c.page.waitForSelector('[role=alert] li')
    const lines = await c.page.locator('[role=alert] li').allTextContents()
    t.equal(lines.length, 2, `two problems: ${JSON.stringify(lines)}`)
    t.ok(lines.some((l) => l.startsWith('configuration.week[0].time: ')), 'the bad time, by its path')
    t.ok(lines.some((l) => l.startsWith('configuration.colour: unknown field')), 'the unknown field, by its path')
    t.match(await c.page.textContent('[role=alert] p'), /refused the configuration \(2 problems\)/)
    await c.shot('config-400')
    await c.page.fill('textarea[name=configuration]', '{"week": [')
    await c.page.click('button:text("Create")')
    await c.page.waitForSelector('[role=alert]:text("The configuration is not JSON")')
    t.equal((await site.http('GET', `/v2/controls/apps?project_id=${pid}`)).body.meta.total_items, 0, 'nothing was created')
  })

  let id = ''
  await t.test('created from the template: its page with the switching times the API resolves', async (t) => {
    await c.page.goto(`${platform.address}/#/p/${pid}/apps`)
    await c.page.click('button:text("New schedule app")')
    await c.page.waitForSelector('textarea[name=configuration]')
    t.match(await c.page.inputValue('textarea[name=configuration]'), /"flow_temp_setpoint": 21/, 'a fresh form holds the template')
    await c.page.fill('input[name=name]', 'HC1 week')
    await c.page.click('button:text("Create")')
    await c.page.waitForSelector('main h1:text("HC1 week")')
    id = new URLSearchParams(await c.page.evaluate(() => location.hash.split('?')[1])).get('app')!
    const app = (await site.get(id)).body
    t.match(app, { name: 'HC1 week', component_in_project_id: cip, pins: { flow_temp_setpoint: FLOW_SP }, status: { code: 100 } })
    t.equal(Number(await status()), 100, 'Created')
    const from = new Date(); from.setUTCHours(0, 0, 0, 0)
    const day = (d: Date) => d.toISOString().slice(0, 10)
    const api = (await site.http('GET', `/v2/project/${pid}/componentinproject/${cip}/schedules?start=${day(from)}&end=${day(new Date(from.getTime() + 7 * 864e5))}`)).body
    const expected = api.apps.find((a: any) => a.controls_app_id === id).switching.map((s: any) => s.local.replace('T', ' '))
    t.equal(expected.length, 10, 'five working days in any seven, two switching times each')
    const shown = await c.page.locator('main h2:has-text("Switching times") + table tbody tr td:first-child').allTextContents()
    t.same(shown, expected, 'the page lists the API\'s switching times')
    t.match(await c.page.textContent('main h2:has-text("Switching times") + table'), /flow_temp_setpoint = 21/)
    await c.shot('app')
  })

  await t.test('run: the edge starts it and reports a write; stop; delete once stopped', async (t) => {
    await c.page.click('button:text("Run")')
    const started = await edge.def((d) => d.app_id === id && d.desired === 'run', 'run')
    t.equal(await refreshUntil(200), 200, 'Starting until the edge answers')
    await edge.state(id, started.revision, 'Running')
    await edge.log(id, 1, { kind: 'write', datapoint: FLOW_SP, value: 21, priority: 13, message: 'switching time 06:00: wrote 21 at priority 13' })
    t.equal(await refreshUntil(202), 202, 'Running')
    t.ok(await c.page.isDisabled('button:text("Delete")'), 'delete is not offered while it runs')
    await c.page.waitForSelector('td:text("switching time 06:00: wrote 21 at priority 13")', { timeout: 1000 }).catch(async () => {
      await c.page.click('button:text("Refresh")')
      await c.page.waitForSelector('td:text("switching time 06:00: wrote 21 at priority 13")')
    })
    t.pass('the edge\'s write is in the log')
    await c.shot('running')
    await c.page.click('button:text("Stop")')
    const stopped = await edge.def((d) => d.app_id === id && d.desired === 'stop', 'stop')
    await edge.state(id, stopped.revision, 'Stopped')
    t.equal(await refreshUntil(302), 302, 'Stopped')
    c.page.once('dialog', (d) => d.accept())
    await c.page.click('button:text("Delete")')
    await c.page.waitForSelector('main h1:text("Controls apps")')
    t.equal((await site.get(id)).body.status.code, 500, 'Deleting until the edge confirms')
    t.match(await c.page.textContent('main table'), /HC1 week\s*\d+\s*schedule\s*Deleting/, 'listed with its state')
  })
  t.same(c.errors, [], 'no uncaught error in the page')
})
