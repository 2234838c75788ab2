// The console's virtual-datapoint form (issue 33 item 4): a formula with a syntax error is
// refused by the server, and the console shows the error at its line and column (the line
// with the character marked, and the character selected in the editor); a formula that
// compiles creates the virtual datapoint, and its page shows its status and log.
import t from 'tap'
import { browserFor, consolePage } from '../helpers/browser.ts'
import { ADMIN, livePlatform } from '../helpers/live-platform.ts'

t.test('the virtual-datapoint form of the console', async (t) => {
  const browser = await browserFor(t)
  if (!browser) return
  const { platform, http, project } = await livePlatform(t)
  const pid = await project('Console VDP')
  t.equal((await http('POST', `/v2/project/${pid}/timeseries`, { 'ahu/supply': [{ time: '2024-06-03T00:00:00Z', value: 16 }], 'ahu/return': [{ time: '2024-06-03T00:00:00Z', value: 20 }] })).status, 200, 'inputs stored')
  const c = await consolePage(t, browser, platform.address, 'vdp-formula-error')
  await c.login(ADMIN)

  await t.test('a syntax error is shown at its line and column', async (t) => {
    await c.page.goto(`${platform.address}/#/p/${pid}/vdp?new=1`)
    await c.page.fill('input[name=dataPointID]', 'ahu/delta_t')
    await c.page.fill('input[name="pin:P1"]', 'ahu/supply')
    await c.page.fill('input[name="pin:P2"]', 'ahu/return')
    const formula = 'd = P2 - P1;\nif(d > 0, d, * 0);'
    await c.page.fill('textarea[name=formula]', formula)
    await c.page.click('button[type=submit]')
    const error = await c.page.waitForSelector('.formula-error')
    await c.shot('syntax-error')
    t.equal(await error.getAttribute('data-line'), '2', 'the error names line 2')
    t.equal(await error.getAttribute('data-column'), '14', 'and column 14, where the * stands')
    t.equal(await c.page.textContent('.formula-error mark'), '*', 'the character there is marked')
    t.equal(await c.page.textContent('.formula-error .formula-line'), '2 | if(d > 0, d, * 0);', 'on its line')
    t.match(await error.textContent(), /Syntax error at line 2, column 14/, 'with the server\'s message')
    const selected = await c.page.evaluate(() => { const a = document.querySelector('textarea[name=formula]') as HTMLTextAreaElement; return a.value.slice(a.selectionStart, a.selectionEnd) })
    t.equal(selected, '*', 'the editor selects the character')
    t.equal((await http('GET', `/v2/project/${pid}/virtual_datapoint?dataPointID=ahu/delta_t`)).status, 404, 'nothing was created')
  })

  await t.test('an unknown name is shown at its position too', async (t) => {
    await c.page.fill('textarea[name=formula]', 'P1 + P7;')
    await c.page.click('button[type=submit]')
    await c.page.waitForFunction(() => document.querySelector('.formula-error')?.getAttribute('data-column') === '6')
    t.equal(await c.page.textContent('.formula-error mark'), 'P', 'the name P7 starts at column 6')
    t.match(await c.page.textContent('.formula-error'), /Unknown name 'P7' at line 1, column 6/)
  })

  await t.test('a correct formula creates it; its page shows status and log, and runs it', async (t) => {
    await c.page.fill('textarea[name=formula]', 'd = P2 - P1;\nif(d > 0, d, 0);')
    await c.page.click('button[type=submit]')
    await c.page.waitForFunction(() => location.hash.includes('dp=ahu%2Fdelta_t'))
    await c.page.waitForSelector('h1:text("ahu/delta_t")')
    t.match(await c.page.textContent('main'), /Created by admin@live\.test/, 'the log names the creator')
    await c.page.click('button:text("Run")')
    await c.page.waitForSelector('[data-status="Running"]')
    await c.shot('running')
    t.equal((await http('GET', `/v2/project/${pid}/virtual_datapoint?dataPointID=ahu/delta_t`)).body.status, 'Running', 'the server runs it')
  })
  t.same(c.errors, [], 'no uncaught error in the page')
})
