// The console in Firefox (issue 33 item 3: "works in the current Chromium and Firefox"):
// Debian's firefox-esr driven by puppeteer-core (test/helpers/firefox.ts). The path
// to a live chart (log in, open a datapoint's chart, publish over MQTT, see the value arrive;
// zoom) and the essentials of three other pages: the datapoint browser's search, a formula error
// at its position, the CSV import's progress. The other console tests run in Chromium.
import { join } from 'node:path'
import t from 'tap'
import { firefoxFor, firefoxPage } from '../helpers/firefox.ts'
import { ADMIN, livePlatform, until } from '../helpers/live-platform.ts'

t.test('the console in Firefox', async (t) => {
  const browser = await firefoxFor(t)
  if (!browser) return
  const { platform, http, project, account, connect } = await livePlatform(t)
  const pid = await project('Firefox console')
  const now = Date.now()
  // A day of one-minute data: drawn sampled (at most 200 points), a zoomed hour raw.
  const day = Array.from({ length: 1440 }, (_, i) => ({ time: new Date(now - (1440 - i) * 60e3).toISOString(), value: 20 + Math.sin(i / 30) }))
  t.equal((await http('POST', `/v2/project/${pid}/timeseries`, { 'ahu/supply': day, 'boiler/flow': day.slice(-1) })).status, 200, 'two datapoints stored')
  const gw = await connect(await account(pid, 'firefox-gw', 'write'))
  await gw.publishAsync(`META/lintel/p${pid}`, JSON.stringify({ entity: { id: 'ahu/supply', type: 'datapoint', source: 'bms' }, mode: ['clean'], tags: [{ key: 'zone', value: 'North' }] }), { qos: 1 })
  t.ok(await until(async () => (await http('GET', `/v2/project/${pid}`)).body.datapoints.some((d: any) => d.tags.zone === 'North')), 'ahu/supply is tagged zone=North')

  const c = await firefoxPage(t, browser, platform.address, 'firefox')
  const { page } = c
  const texts = (selector: string) => page.$$eval(selector, (els) => els.map((e) => e.textContent ?? ''))
  await c.login(ADMIN)
  t.match(await browser.version(), /^firefox\//i, `logged in with ${await browser.version()}`)
  const bytes = await page.evaluate(() => [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].reduce((n, e) => n + (e as PerformanceResourceTiming).transferSize, 0))
  t.ok(bytes > 10_000 && bytes < 300 * 1024, `the login page load transferred ${bytes} bytes (< 300 KB)`)
  await page.click(`::-p-text(Firefox console)`)

  await t.test('the datapoint browser searches by word and by tag', async (t) => {
    await page.waitForSelector('a.dp')
    t.same(await texts('a.dp'), ['ahu/supply', 'boiler/flow'], 'both listed')
    await page.locator('input.search').fill('boiler')
    await page.waitForFunction(() => document.querySelector('.count')?.textContent === '1 of 2 datapoints')
    t.same(await texts('a.dp'), ['boiler/flow'], 'a word of the identifier')
    await page.locator('input.search').fill('zone=north')
    await page.waitForFunction(() => document.querySelector('.count')?.textContent === '1 of 2 datapoints' && document.querySelector('a.dp')?.textContent === 'ahu/supply')
    t.pass('a tag, key=value in any case')
    await c.shot('search')
  })

  await t.test('a value published over MQTT arrives on the live chart; drag to zoom reads again', async (t) => {
    await page.click('a.dp')
    await page.waitForSelector('.live-state[data-state="live"]')
    const chart = (key: string) => page.$eval('[data-testid=chart]', (el, k) => (el as HTMLElement).dataset[k], key)
    const drawn = Number(await chart('points'))
    t.ok(drawn > 50 && drawn <= 201, `the day is drawn sampled automatically: ${drawn} points`)
    t.equal(await page.$eval('main h1', (h) => h.textContent), 'ahu/supply')
    await gw.publishAsync(`lintel/p${pid}/ahu`, `ahu/supply value=42.5 ${BigInt(Date.now()) * 1_000_000n}`, { qos: 1 })
    await page.waitForFunction(() => document.querySelector('[data-testid=chart]')?.getAttribute('data-last') === '42.5', { timeout: 15_000 })
    t.pass('the chart\'s newest point is the published 42.5')
    const now = Number(await chart('points'))
    t.ok(now === drawn + 1 || now === drawn, `added to what was drawn (${drawn} → ${now}: the oldest may leave the sliding window)`)
    await c.shot('live-value')

    // From 10 % to 14 % of the width (about an hour of the day), as a user drags.
    const range = await chart('range')
    const box = (await (await page.$('[data-testid=chart] .u-over'))!.boundingBox())!
    await page.mouse.move(box.x + box.width * 0.10, box.y + box.height / 2)
    await page.mouse.down()
    await page.mouse.move(box.x + box.width * 0.14, box.y + box.height / 2, { steps: 5 })
    await page.mouse.up()
    await page.waitForFunction((r) => { const d = (document.querySelector('[data-testid=chart]') as HTMLElement).dataset; return d.range !== r && d.loading === 'false' }, {}, range)
    const [from, to] = (await chart('range'))!.split('/').map(Date.parse)
    t.ok(to - from > 20 * 60e3 && to - from < 3 * 3600e3, `zoomed to ${Math.round((to - from) / 60e3)} min`)
    const points = Number(await chart('points'))
    t.ok(points >= 20 && points <= 180, `drawn from raw observations, one a minute: ${points} points`)
    await page.click('[data-testid=chart] .u-over', { count: 2 })
    await page.waitForFunction(() => { const d = (document.querySelector('[data-testid=chart]') as HTMLElement).dataset; return Number(d.points) > 180 && d.loading === 'false' })
    t.pass('a double-click returns to the whole day')
  })

  await t.test('a formula error is shown at its line and column, and selected in the editor', async (t) => {
    await page.goto(`${platform.address}/#/p/${pid}/vdp?new=1`)
    await page.locator('input[name=dataPointID]').fill('ahu/double')
    await page.locator('input[name="pin:P1"]').fill('ahu/supply')
    await page.locator('textarea[name=formula]').fill('d = P1 * 2;\nif(d > 0, d, * 0);')
    await page.click('button[type=submit]')
    await page.waitForSelector('.formula-error mark')
    t.same(await page.$eval('.formula-error', (e) => [e.getAttribute('data-line'), e.getAttribute('data-column')]), ['2', '14'], 'line 2, column 14')
    t.equal(await page.$eval('.formula-error mark', (e) => e.textContent), '*', 'the character there is marked')
    const selected = await page.$eval('textarea[name=formula]', (a) => { const x = a as HTMLTextAreaElement; return x.value.slice(x.selectionStart, x.selectionEnd) })
    t.equal(selected, '*', 'the editor selects it')
    await c.shot('formula-error')
  })

  await t.test('CSV import: upload, progress bar, lines stored and refused', async (t) => {
    const dir = t.testdir({ 'data.csv': ['ahu9/temp,20.5,2024-06-03T00:00:00Z', 'ahu9/temp,oops,2024-06-03T00:01:00Z', 'ahu9/temp,21,2024-06-03T00:02:00Z'].join('\n') + '\n' })
    await page.goto(`${platform.address}/#/p/${pid}/import`)
    const input = await page.waitForSelector('input[name=import_file]')
    await input!.uploadFile(join(dir, 'data.csv'))
    await page.click('button[type=submit]')
    await page.waitForFunction(() => document.querySelector('p.hint')?.textContent?.startsWith('Done:'))
    t.equal(await page.$eval('p.hint', (e) => e.textContent), 'Done: 2 lines stored, 1 refused.')
    t.equal(await page.$eval('progress', (p) => (p as HTMLProgressElement).value), 1, 'the bar is full')
    t.match(await page.$eval('table', (e) => e.textContent), /2\s*Cannot parse float: 'oops'/, 'the refused line with its number and reason')
    t.equal((await http('GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=ahu9/temp&max=0`)).body.data.length, 2, 'stored')
    await c.shot('import')
  })

  await t.test('CSV import with on_error=abort: the upload\'s progress, then the server\'s, streamed', async (t) => {
    const n = 120_001
    const dir = t.testdir({ 'big.csv': Array.from({ length: n }, (_, i) => `ahu8/temp,${i % 40},${new Date(Date.UTC(2024, 5, 1) + i * 60e3).toISOString()}`).join('\n') + '\n' })
    await page.goto(`${platform.address}/#/p/${pid}/import`)
    await (await page.waitForSelector('input[name=import_file]'))!.uploadFile(join(dir, 'big.csv'))
    await page.select('select[name=on_error]', 'abort')
    // Every text the status line showed, in order (the page replaces it as progress arrives).
    await page.evaluate(() => {
      const seen: string[] = (window as any).statuses = []
      new MutationObserver(() => seen.push(document.querySelector('p.hint')?.textContent ?? '')).observe(document.querySelector('p.hint')!, { childList: true, characterData: true, subtree: true })
    })
    await page.click('button[type=submit]')
    await page.waitForFunction(() => /^Done: 120001 lines/.test(document.querySelector('p.hint')?.textContent ?? ''), { timeout: 60_000 })
    const seen: string[] = await page.evaluate(() => (window as any).statuses)
    t.ok(seen.some((s) => /^Sent and read by the server: [\d.]+ of 4\.5 MB$/.test(s)), `the upload's progress was shown: ${JSON.stringify(seen.slice(0, 2))}`)
    t.ok(seen.some((s) => /^The server stored [\d,]+ of 120,001 lines…$/.test(s)), `the server's progress was shown: ${JSON.stringify(seen.slice(-4))}`)
    t.equal(seen.at(-1), 'Done: 120001 lines stored, 0 refused.')
    await c.shot('import-progress')
  })
  t.same(c.errors, [], 'no uncaught error in the page')
})
