// Every page of the console opens on real data and does its one job (issue 33 item 3):
// alerts with their state and a raise arriving live, MQTT accounts created from the form,
// a CSV import with its progress bar and line errors, documents uploaded and listed,
// setpoints, analytics, virtual datapoints, favorites.
import t from 'tap'
import { browserFor, consolePage } from '../helpers/browser.ts'
import { ADMIN, livePlatform } from '../helpers/live-platform.ts'

t.test('the pages of the console', async (t) => {
  const browser = await browserFor(t)
  if (!browser) return
  const { platform, http, project } = await livePlatform(t)
  const pid = await project('Console pages')
  const now = Date.now()
  t.equal((await http('POST', `/v2/project/${pid}/timeseries`, { 'ahu3/supply_temp': [{ time: new Date(now - 60e3).toISOString(), value: 22 }] })).status, 200)
  const alert = await http('POST', `/v2/alert/threshold?project_id=${pid}`, { name: 'AHU3 supply air', dataPointID: 'ahu3/supply_temp', thresholds: { warn: { upper: 26 } }, notification: { log: true } })
  t.equal(alert.status, 201, 'a threshold alert')
  const c = await consolePage(t, browser, platform.address, 'pages')
  await c.login(ADMIN)
  const open = async (page: string) => {
    await c.page.goto(`${platform.address}/#/p/${pid}/${page}`)
    await c.page.waitForFunction(() => !document.querySelector('main')?.textContent?.includes('Loading'))
  }

  await t.test('alerts: state, and a raise arriving live', async (t) => {
    await open('alerts')
    await c.page.waitForSelector('.live-state[data-state="live"]')
    t.equal(await c.page.getAttribute('[data-alert-state]', 'data-alert-state'), 'ok', 'not raised')
    t.equal((await http('POST', `/v2/project/${pid}/timeseries`, { 'ahu3/supply_temp': [{ time: new Date().toISOString(), value: 27 }] })).status, 200)
    await c.page.waitForSelector('[data-alert-state="warn"]', { timeout: 15_000 })
    t.match(await c.page.textContent('#notice'), /ahu3\/supply_temp: raise warn at 27/, 'the raise is announced as it happens')
    await c.page.click(`a:text("AHU3 supply air")`)
    await c.page.waitForSelector('h2:text("Events of alert")')
    t.match(await c.page.textContent('main'), /raise\s*warn\s*27/, 'its event is listed')
    await c.shot('alerts')
  })

  await t.test('MQTT accounts: created from the form, listed', async (t) => {
    await open('mqtt')
    await c.page.fill('input[name=username]', 'console-gw')
    await c.page.fill('input[name=password]', 'console-gw-secret')
    await c.page.selectOption('select[name=rights]', 'write')
    await c.page.click('button:text("Create")')
    await c.page.waitForSelector('td:text("console-gw")')
    const accounts = await http('GET', `/v2/project/${pid}/mqttusers`)
    t.same(accounts.body.map((a: any) => [a.username, a.rights]), [['console-gw', 'write']], 'the server has it')
    await c.shot('mqtt')
  })

  await t.test('CSV import: progress bar, lines stored and refused', async (t) => {
    await open('import')
    const lines = ['ahu9/temp,20.5,2024-06-03T00:00:00Z', 'ahu9/temp,oops,2024-06-03T00:01:00Z', 'ahu9/temp,21,2024-06-03T00:02:00Z']
    await c.page.setInputFiles('input[name=import_file]', { name: 'data.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n') + '\n') })
    await c.page.click('button:text("Import")')
    await c.page.waitForSelector('text=Done:')
    t.match(await c.page.textContent('main'), /Done: 2 lines stored, 1 refused\./)
    t.equal(await c.page.evaluate(() => (document.querySelector('progress') as HTMLProgressElement).value), 1, 'the bar is full')
    t.match(await c.page.textContent('table'), /2\s*Cannot parse float: 'oops'/, 'the refused line with its number and reason')
    t.equal((await http('GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=ahu9/temp&max=0`)).body.data.length, 2, 'stored')
    await c.shot('import')
  })

  await t.test('CSV import with on_error=abort: the server\'s progress of its store pass, out of the lines checked', async (t) => {
    await open('import')
    const n = 120_001
    const csv = Array.from({ length: n }, (_, i) => `ahu8/temp,${i % 40},${new Date(Date.UTC(2024, 5, 1) + i * 60e3).toISOString()}`).join('\n') + '\n'
    await c.page.setInputFiles('input[name=import_file]', { name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
    await c.page.selectOption('select[name=on_error]', 'abort')
    // Every text the status line showed, in order (the page replaces it as lines arrive).
    await c.page.evaluate(() => {
      const seen: string[] = (window as any).statuses = []
      new MutationObserver(() => seen.push(document.querySelector('p.hint')?.textContent ?? '')).observe(document.querySelector('p.hint')!, { childList: true, characterData: true, subtree: true })
    })
    await c.page.click('button:text("Import")')
    // This import's own result: the page of the subtest before may still show its "Done:" line.
    await c.page.waitForSelector('text=/Done: 120001 lines/', { timeout: 120_000 })
    t.match(await c.page.textContent('main'), /Done: 120001 lines stored, 0 refused\./)
    const seen: string[] = await c.page.evaluate(() => (window as any).statuses)
    t.ok(seen.some((s) => /^The server stored [\d,.\s\u202f]+ of 120[,.\s\u202f]?001 lines…$/.test(s)), `the server's progress was shown: ${JSON.stringify(seen.slice(-4))}`)
    t.equal((await http('GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=ahu8/temp&max=0`)).body.data.length, n, 'stored')
    await c.shot('import-progress')
  })

  await t.test('documents: upload into a folder, listed', async (t) => {
    await open('documents')
    await c.page.fill('input[name=folder]', 'plans')
    await c.page.setInputFiles('input[name=file]', { name: 'ahu.txt', mimeType: 'text/plain', buffer: Buffer.from('AHU plan') })
    await c.page.click('button:text("Upload")')
    await c.page.waitForSelector('button.link:text("plans/ahu.txt")')
    t.pass('the uploaded file is listed')
    t.match(await c.page.textContent('main'), /1 files/, 'the quota counts it')
  })

  await t.test('setpoints, analytics, virtual datapoints and favorites open', async (t) => {
    await open('setpoints?dp=ahu3/supply_temp')
    await c.page.waitForSelector('text=Writable: no')
    t.match(await c.page.textContent('main'), /No setpoint request yet/)
    await open('analytics')
    await c.page.waitForSelector('text=No result yet')
    await open('vdp')
    await c.page.waitForSelector('text=No virtual datapoint yet.')
    await open('favorites')
    await c.page.waitForSelector('main h1:text("Favorites")')
    t.notMatch(await c.page.textContent('main'), /Could not open/, 'the favorites page opens')
  })
  t.same(c.errors, [], 'no uncaught error in the page')
})
