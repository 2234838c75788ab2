// A user whose role reads one datapoint through a narrow TagAuth never sees another one
// anywhere in the console (issue 33 item 4): not in the datapoint browser, not in a search,
// not in a chart (asked for by URL it is refused like an unknown one and left out), and none
// of its observations over the live WebSocket, while the readable one arrives.
import t from 'tap'
import type { WebSocket as PwWebSocket } from 'playwright-core'
import { browserFor, consolePage } from '../helpers/browser.ts'
import { livePlatform } from '../helpers/live-platform.ts'

const NARROW = { email: 'narrow@live.test', password: 'narrow-pass-1' }

t.test('a narrow TagAuth in the console', async (t) => {
  const browser = await browserFor(t)
  if (!browser) return
  const { platform, http, project, account, connect } = await livePlatform(t)
  const pid = await project('Console TagAuth')
  const now = Date.now()
  const series = (base: number) => Array.from({ length: 30 }, (_, i) => ({ time: new Date(now - (30 - i) * 60e3).toISOString(), value: base + i }))
  t.equal((await http('POST', `/v2/project/${pid}/timeseries`, { 'open/a': series(10), 'secret/b': series(500) })).status, 200)
  const user = await http('POST', '/v2/company/user', { company_id: 1, firstName: 'Nora', lastName: 'Narrow', ...NARROW })
  t.equal(user.status, 201, 'the narrow user')
  const role = await http('POST', `/v2/project/${pid}/role`, {
    name: 'open-reader', description: 'reads open/a only', authed_endpoints: [30, 52, 190],
    authed_tags: [{ key: 'dataPointID', value: 'open/a', read: true, write: false }],
  })
  t.equal(role.status, 201, 'a role reading open/a only')
  t.equal((await http('POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${user.body.resource.id}`)).status, 201)

  const c = await consolePage(t, browser, platform.address, 'tagauth')
  /** Every text frame the page received on a WebSocket, and every API answer it read. */
  const frames: string[] = []
  const answers: string[] = []
  c.page.on('websocket', (ws: PwWebSocket) => ws.on('framereceived', (f) => frames.push(String(f.payload))))
  c.page.on('response', async (r) => { if (r.url().includes('/v2/')) answers.push(await r.text().catch(() => '')) })
  await c.login(NARROW)
  await c.page.click('text=Console TagAuth')

  await t.test('the datapoint browser lists only the readable one', async (t) => {
    await c.page.waitForSelector('a.dp')
    t.same(await c.page.locator('a.dp').allTextContents(), ['open/a'])
    t.equal(await c.page.textContent('.count'), '1 of 1 datapoints', 'the total counts readable datapoints only')
    await c.shot('browser')
  })

  await t.test('a search finds nothing of it', async (t) => {
    for (const q of ['secret', 'b', 'dataPointID=secret/b', '/']) {
      await c.page.fill('input.search', q)
      const shown = await c.page.locator('a.dp').allTextContents()
      t.notOk(shown.includes('secret/b'), `search '${q}' shows ${JSON.stringify(shown)}`)
    }
    await c.shot('search')
  })

  await t.test('a chart asked for it by URL leaves it out; live data of it never reaches the page', async (t) => {
    await c.page.goto(`${platform.address}/#/p/${pid}/chart?dp=open%2Fa&dp=secret%2Fb`)
    await c.page.waitForSelector('.live-state[data-state="live"]')
    t.equal(await c.page.textContent('main h1'), 'open/a', 'the chart shows the readable datapoint only')
    t.match(await c.page.textContent('#notice'), /not found/, 'the other is refused as not found, like an unknown one')
    const unknown = await http('GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=nope%2Fc&max=1`, undefined, NARROW)
    const hidden = await http('GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=secret%2Fb&max=1`, undefined, NARROW)
    t.same([hidden.status, hidden.body.error.replace('secret/b', 'X')], [unknown.status, unknown.body.error.replace('nope/c', 'X')], 'hidden and unknown answer alike')
    const subscribed = frames.map((f) => JSON.parse(f)).find((m) => m.type === 'subscribed')
    t.same(subscribed?.datapoints, ['open/a'], 'the live subscription holds the readable datapoint only')

    // One MQTT message with a line of each: stored in one batch, so if the hidden one were sent
    // it would arrive with the readable one.
    const gw = await connect(await account(pid, 'tagauth-gw', 'write'))
    const at = BigInt(Date.now()) * 1_000_000n
    await gw.publishAsync(`lintel/p${pid}/x`, `secret/b value=666.25 ${at}\nopen/a value=11.5 ${at}`, { qos: 1 })
    await c.page.waitForFunction(() => document.querySelector('[data-testid=chart]')?.getAttribute('data-last') === '11.5', undefined, { timeout: 15_000 })
    t.pass('the readable datapoint\'s new value arrives live')
    await c.shot('chart')
    t.same(frames.filter((f) => f.includes('secret/b') || f.includes('666.25')), [], 'no frame names the hidden datapoint or carries its value')
    t.same(answers.filter((a) => /"dataPointID":"secret\/b"|"value":5\d\d\b|666\.25/.test(a) && !a.includes('not found')), [], 'no API answer the page read carries it or its values')
    // The notice repeats the name the user typed, refused as for any unknown name; nothing else shows it.
    t.equal(await c.page.textContent('#notice'), `Datapoint 'secret/b' not found in project ${pid}`)
    const html = await c.page.evaluate(() => { const d = document.documentElement.cloneNode(true) as HTMLElement; d.querySelector('#notice')!.remove(); return d.outerHTML })
    t.notMatch(html, /666\.25|secret\/b/, 'the page shows neither it nor its values')
  })
  await t.test('when the TagAuth is taken away, what the chart drew of the datapoint goes', async (t) => {
    const tagauth = role.body.resource.authed_tags[0].id
    t.equal((await http('DELETE', `/v2/project/${pid}/role/${role.body.resource.id}/tagauth/${tagauth}`)).status, 200, 'the TagAuth removed')
    await c.page.waitForFunction(() => document.querySelector('[data-testid=chart]')?.getAttribute('data-points') === '0', undefined, { timeout: 15_000 })
    t.match(await c.page.textContent('#notice'), /open\/a: you may no longer read it/, 'the user is told why')
    await c.shot('revoked')
  })
  await t.test('the favorites page, not granted to this role, says so in words', async (t) => {
    await c.page.goto(`${platform.address}/#/p/${pid}/favorites`)
    await c.page.waitForSelector('main [data-reason="not-granted"]')
    t.equal(await c.page.textContent('main [data-reason="not-granted"]'), 'Your roles in this project do not include favorites and plot views: an administrator of the project can grant them.')
    t.notMatch(await c.page.textContent('main'), /Unauthorized access|Could not open/, 'no raw 403 text')
    await c.shot('favorites-not-granted')
  })
  t.same(c.errors, [], 'no uncaught error in the page')
})
