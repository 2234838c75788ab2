// The console's chart (issue 33 items 3 and 4): log in, open a chart, publish a value over
// MQTT and see it arrive in the chart through the live WebSocket; drag to zoom and see the
// range read again, at finer sampling; and the page load transfers less than 300 KB.
import t from 'tap'
import { browserFor, consolePage } from '../helpers/browser.ts'
import { ADMIN, livePlatform } from '../helpers/live-platform.ts'

t.test('a live chart in the console', async (t) => {
  const browser = await browserFor(t)
  if (!browser) return
  const { platform, http, project, account, connect } = await livePlatform(t)
  const pid = await project('Console chart')
  // A day of one-minute data ending now: 1,440 observations, more than automatic sampling's
  // 200, so the whole day is drawn sampled and a zoomed hour raw.
  const now = Date.now()
  const day = Array.from({ length: 1440 }, (_, i) => ({ time: new Date(now - (1440 - i) * 60e3).toISOString(), value: 20 + Math.sin(i / 30) }))
  t.equal((await http('POST', `/v2/project/${pid}/timeseries`, { 'ahu/supply': day })).status, 200, 'a day stored')
  const c = await consolePage(t, browser, platform.address, 'chart-live')
  const reads: URL[] = []
  c.page.on('request', (r) => { if (r.url().includes('/v2/datapoint/timeseries')) reads.push(new URL(r.url())) })

  await c.login(ADMIN)
  await c.shot('projects')
  const weight = await c.page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[]
    const res = performance.getEntriesByType('resource') as PerformanceResourceTiming[]
    return { bytes: [...nav, ...res].reduce((n, e) => n + e.transferSize, 0), files: res.length + nav.length }
  })
  t.ok(weight.bytes > 10_000 && weight.bytes < 300 * 1024, `the login page load transferred ${weight.bytes} bytes in ${weight.files} files (< 300 KB)`)

  await c.page.click('text=Console chart')
  await c.page.waitForSelector('a.dp:text("ahu/supply")')
  await c.page.click('a.dp:text("ahu/supply")')
  const chart = c.page.locator('[data-testid=chart]')
  await c.page.waitForSelector('.live-state[data-state="live"]')
  const drawn = Number(await chart.getAttribute('data-points'))
  // At most N = 200 buckets (201 when the range's ends fall inside buckets).
  t.ok(drawn > 50 && drawn <= 201, `the day is drawn sampled automatically: ${drawn} points`)
  const chartWeight = await c.page.evaluate(() => [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].reduce((n, e) => n + (e as PerformanceResourceTiming).transferSize, 0))
  t.ok(chartWeight < 300 * 1024, `login and chart together transferred ${chartWeight} bytes (< 300 KB)`)
  await c.shot('chart')

  await t.test('a value published over MQTT arrives in the chart', async (t) => {
    const gw = await connect(await account(pid, 'console-gw', 'write'))
    const at = BigInt(Date.now()) * 1_000_000n
    await gw.publishAsync(`lintel/p${pid}/ahu`, `ahu/supply value=42.5 ${at}`, { qos: 1 })
    await c.page.waitForFunction(() => document.querySelector('[data-testid=chart]')?.getAttribute('data-last') === '42.5', undefined, { timeout: 15_000 })
    t.pass('the chart\'s newest point is the published 42.5')
    const now = Number(await chart.getAttribute('data-points'))
    t.ok(now === drawn + 1 || now === drawn, `added to what was drawn (${drawn} → ${now}: the window slides to the new point, the oldest may leave it)`)
    await c.shot('live-value')
  })

  await t.test('drag to zoom reads the range again, raw now that it is short', async (t) => {
    const before = reads.length
    const range = await chart.getAttribute('data-range')
    const box = (await chart.locator('.u-over').boundingBox())!
    // From 10 % to 14 % of the width: about an hour of the day.
    await c.page.mouse.move(box.x + box.width * 0.10, box.y + box.height / 2)
    await c.page.mouse.down()
    await c.page.mouse.move(box.x + box.width * 0.14, box.y + box.height / 2, { steps: 5 })
    await c.page.mouse.up()
    await c.page.waitForFunction((r) => { const d = (document.querySelector('[data-testid=chart]') as HTMLElement).dataset; return d.range !== r && d.loading === 'false' }, range)
    const read = reads.slice(before).find((u) => u.searchParams.get('dataPointID') === 'ahu/supply')
    t.ok(read, 'the zoomed range was read again')
    const span = Date.parse(read!.searchParams.get('end')!) - Date.parse(read!.searchParams.get('start')!)
    t.ok(span > 20 * 60e3 && span < 3 * 3600e3, `the read covers the zoomed range only (${Math.round(span / 60e3)} min)`)
    t.notOk(read!.searchParams.has('samplerate'), 'with automatic sampling (no samplerate)')
    const points = Number(await chart.getAttribute('data-points'))
    t.ok(points >= 20 && points <= 180, `the zoomed hour is drawn from raw observations: ${points} points, one a minute`)
    await c.shot('zoomed')
    const zoomed = await chart.getAttribute('data-range')
    await c.page.click('button:text("Back")')
    await c.page.waitForFunction((r) => { const d = (document.querySelector('[data-testid=chart]') as HTMLElement).dataset; return d.range !== r && d.loading === 'false' }, zoomed)
    const back = Number(await chart.getAttribute('data-points'))
    t.ok(back > points && back <= 202, `Back returns to the whole day, sampled again (${back} points)`)
  })
  await t.test('a fixed sampling with an aggregate reads buckets of it', async (t) => {
    const before = reads.length
    await c.page.selectOption('select[aria-label=Sampling]', '1h')
    await c.page.waitForFunction(() => location.hash.includes('samplerate=1h'))
    await c.page.waitForSelector('.live-state[data-state="live"]')
    await c.page.selectOption('select[aria-label=Aggregate]', 'max')
    await c.page.waitForFunction(() => location.hash.includes('aggregate=max'))
    await c.page.waitForSelector('.live-state[data-state="live"]')
    const read = reads.slice(before).reverse().find((u) => u.searchParams.get('aggregate') === 'max')
    t.equal(read?.searchParams.get('samplerate'), '1h', 'read with samplerate=1h&aggregate=max')
    const points = Number(await chart.getAttribute('data-points'))
    t.ok(points >= 24 && points <= 26, `a day in hours: ${points} points`)
    t.match(await chart.getAttribute('data-last'), /^(42\.5|2\d\.\d*)$/, 'the last bucket\'s maximum')
  })
  t.same(c.errors, [], 'no uncaught error in the page')
})
