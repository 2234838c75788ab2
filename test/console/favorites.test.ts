// Favorites and plot views in the console (issue 33 items 2 and 3): star a datapoint in the
// browser, find it under Favorites, save a chart as a plot view and open it again; another
// user of the project sees none of them.
import t from 'tap'
import { browserFor, consolePage } from '../helpers/browser.ts'
import { ADMIN, livePlatform } from '../helpers/live-platform.ts'

const OTHER = { email: 'other@live.test', password: 'other-pass-1' }

t.test('favorites and plot views', async (t) => {
  const browser = await browserFor(t)
  if (!browser) return
  const { platform, http, project } = await livePlatform(t)
  const pid = await project('Console favorites')
  const now = Date.now()
  const points = (b: number) => Array.from({ length: 10 }, (_, i) => ({ time: new Date(now - (10 - i) * 60e3).toISOString(), value: b + i }))
  t.equal((await http('POST', `/v2/project/${pid}/timeseries`, { 'ahu/a': points(1), 'ahu/b': points(100) })).status, 200)
  const c = await consolePage(t, browser, platform.address, 'favorites')
  await c.login(ADMIN)
  await c.page.goto(`${platform.address}/#/p/${pid}/datapoints`)
  await c.page.waitForSelector('button.star')

  await t.test('a star makes a favorite, listed under Favorites', async (t) => {
    await c.page.locator('tr', { has: c.page.locator('a.dp:text("ahu/b")') }).locator('button.star').click()
    await c.page.waitForSelector('button.star[aria-pressed="true"]')
    t.same((await http('GET', `/v2/project/${pid}/favorites`)).body.favorites.map((f: any) => f.dataPointID), ['ahu/b'], 'the server keeps it')
    await c.page.goto(`${platform.address}/#/p/${pid}/favorites`)
    await c.page.waitForSelector('main a:text("ahu/b")')
    t.pass('listed')
  })

  await t.test('a chart saved as a plot view opens again from Favorites', async (t) => {
    await c.page.goto(`${platform.address}/#/p/${pid}/chart?dp=ahu%2Fa&dp=ahu%2Fb`)
    await c.page.waitForSelector('.live-state[data-state="live"]')
    c.page.once('dialog', (d) => d.accept('Both AHU'))
    await c.page.click('button:text("Save view")')
    await c.page.waitForSelector('#notice:text("Saved plot view Both AHU.")')
    const views = (await http('GET', `/v2/project/${pid}/plotviews`)).body.plotviews
    t.match(views, [{ name: 'Both AHU', datapoints: [{ dataPointID: 'ahu/a' }, { dataPointID: 'ahu/b' }], relative: '1d', samplerate: 'auto' }], 'stored with its datapoints and relative range')
    await c.page.goto(`${platform.address}/#/p/${pid}/favorites`)
    await c.page.click('a:text("Both AHU")')
    await c.page.waitForSelector('.live-state[data-state="live"]')
    t.equal(await c.page.textContent('main h1'), 'ahu/a, ahu/b', 'the view\'s chart')
    t.equal(await c.page.getAttribute('[data-testid=chart]', 'data-points'), '20')
    await c.shot('plot-view')
  })

  await t.test('another user of the project sees none of them', async (t) => {
    const user = await http('POST', '/v2/company/user', { company_id: 1, firstName: 'O', lastName: 'Ther', ...OTHER })
    const role = await http('POST', `/v2/project/${pid}/role`, { name: 'all', description: '', authed_endpoints: [30, 52, 190, 191, 194], authed_tags: [{ key: 'dataPointID', value: '*', read: true, write: false }] })
    t.equal((await http('POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${user.body.resource.id}`)).status, 201)
    const o = await consolePage(t, browser, platform.address, 'favorites-other')
    await o.login(OTHER)
    await o.page.goto(`${platform.address}/#/p/${pid}/favorites`)
    await o.page.waitForSelector('text=No favorite yet')
    await o.page.waitForSelector('text=No plot view yet')
    t.pass('empty for the other user')
  })
  t.same(c.errors, [], 'no uncaught error in the page')
})
