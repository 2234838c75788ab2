// Alerts through the API of a listening platform (issue 13 items 1, 3, 5): the endpoints 100-108,
// their payloads and refusals, and threshold alerts evaluated on the live stream (observations
// posted over HTTP, stored, then evaluated) with their events readable per alert.
import t from 'tap'
import { livePlatform } from '../helpers/live-platform.ts'
import { waitFor } from '../helpers/wait.ts'

const threshold = (dataPointID: string, extra: object = {}) => ({
  name: `High ${dataPointID}`, dataPointID,
  thresholds: { warn: { upper: 25, upper_reset: 23 }, crit: { upper: 30, upper_reset: 28 }, info: { lower: 5, lower_reset: 7 } },
  attributes: { room: 'R1' }, ...extra,
})

t.test('create, read, list, refuse PUT, disable, enable, delete', async (t) => {
  const live = await livePlatform(t, { LINTEL_WEBHOOK_ALLOW: '127.0.0.1' })
  const pid = await live.project('Alerts')
  const made = await live.http('POST', `/v2/alert/threshold?project_id=${pid}`, threshold('ahu/supply', { description: 'supply air', notification: { webhook: { url: 'http://127.0.0.1:9/hook', secret: 'a-secret-of-16-chars' }, log: true } }))
  t.equal(made.status, 201, JSON.stringify(made.body))
  const a = made.body.resource
  t.match(a, {
    project_id: pid, kind: 'threshold', name: 'High ahu/supply', dataPointID: 'ahu/supply', enabled: true, status: 'Enabled', status_code: 200,
    thresholds: { warn: { upper: 25, upper_reset: 23 } }, attributes: { room: 'R1' }, state: { raised: false, level: null },
    notification: { webhook: { url: 'http://127.0.0.1:9/hook', secret_set: true }, log: true },
  })
  t.notOk(JSON.stringify(made.body).includes('a-secret-of-16-chars'), 'the secret is never shown')
  const tp = await live.http('POST', `/v2/alert/throughput?project_id=${pid}`, { name: 'Silent meter', dataPointID: 'meter', throughput: { window_seconds: 900 }, enabled: false })
  t.equal(tp.status, 201)
  t.match(tp.body.resource, { kind: 'throughput', throughput: { window_seconds: 900, min_count: 1, level: 'warn' }, enabled: false, status: 'Disabled' })

  // Refusals with clear texts.
  const bad = await live.http('POST', `/v2/alert/threshold?project_id=${pid}`, threshold('x', { thresholds: { warn: { upper: 5, upper_reset: 9 } } }))
  t.equal(bad.status, 400)
  t.match(bad.body.error, 'upper_reset must be at or below upper')
  t.equal((await live.http('POST', `/v2/alert/threshold?project_id=${pid}`, threshold('x', { thresholds: { fatal: { upper: 1 } } }))).status, 400)
  t.equal((await live.http('POST', `/v2/alert/threshold?project_id=${pid}`, threshold('x', { notification: { webhook: { url: 'ftp://x', secret: 'a-secret-of-16-chars' } } }))).status, 400)
  t.equal((await live.http('POST', '/v2/alert/threshold', threshold('x'))).status, 400, 'project_id is required')
  const put = await live.http('PUT', `/v2/project/${pid}/alert/${a.id}`, { name: 'x' })
  t.equal(put.status, 409)
  // Spec 3: "in-place modification is no longer supported; delete and recreate".
  t.same(put.body, { success: false, operation: 'update', error: `Alert ${a.id}: in-place modification of alerts is no longer supported; delete it (DELETE /v2/alert/${a.id}?project_id=${pid}) and create it again` })

  t.same((await live.http('GET', `/v2/project/${pid}/alert/${a.id}`)).body.id, a.id)
  const list = async (q: string) => (await live.http('GET', `/v2/project/${pid}/alerts${q}`)).body
  t.same((await list('')).items.map((x: any) => x.id), [a.id, tp.body.resource.id])
  t.same((await list('?enabled=false')).items.map((x: any) => x.name), ['Silent meter'])
  t.same((await list('?level=crit')).items.map((x: any) => x.id), [a.id])
  t.same((await list('?dataPointID=meter')).items.map((x: any) => x.id), [tp.body.resource.id])
  t.same((await list('?search=SUPPLY')).items.map((x: any) => x.id), [a.id])
  t.same((await list('?sort=-name')).items.map((x: any) => x.name), ['Silent meter', 'High ahu/supply'])
  t.same((await list('?per_page=1&page=2')).meta, { current_page: 2, items_per_page: 1, total_items: 2, total_pages: 2 })
  t.equal((await live.http('GET', `/v2/project/${pid}/alerts?sort=colour`)).status, 400)

  const off = await live.http('POST', `/v2/alert/${a.id}/disable?project_id=${pid}`)
  t.equal(off.status, 200)
  t.match(off.body.resource, { enabled: false, status: 'Disabled' })
  t.notOk(live.platform.alerts!.isRunning(a.id))
  const again = await live.http('POST', `/v2/alert/${a.id}/disable?project_id=${pid}`)
  t.equal(again.status, 409)
  t.match(again.body.error, "Alert 'High ahu/supply' is already disabled")
  t.equal((await live.http('POST', `/v2/alert/${a.id}/enable?project_id=${pid}`)).body.resource.status, 'Enabled')
  t.ok(live.platform.alerts!.isRunning(a.id))

  const other = await live.project('Other')
  t.equal((await live.http('DELETE', `/v2/alert/${a.id}?project_id=${other}`)).status, 404, 'not found through another project')
  const del = await live.http('DELETE', `/v2/alert/${a.id}?project_id=${pid}`)
  t.equal(del.status, 200)
  t.notOk(live.platform.alerts!.isRunning(a.id))
  t.equal((await live.http('GET', `/v2/project/${pid}/alert/${a.id}`)).status, 404)

  // Deleting the project removes its alerts with their events (a raised one is stopped first).
  const raised = (await live.http('POST', `/v2/alert/threshold?project_id=${pid}`, threshold('ahu/return'))).body.resource.id as number
  t.equal((await live.http('POST', `/v2/project/${pid}/timeseries`, { 'ahu/return': [{ time: '2024-01-01T00:00:00Z', value: 40 }] })).status, 200)
  await waitFor(async () => (await live.platform.catalog.alerts.eventCount(raised)) === 1, { what: 'the crit raise' })
  t.ok(live.platform.alerts!.isRunning(raised))
  t.equal((await live.http('DELETE', `/v2/project/${pid}`)).status, 200)
  t.notOk(live.platform.alerts!.isRunning(raised), 'stopped')
  for (const id of [raised, tp.body.resource.id]) t.equal(await live.platform.catalog.alerts.find(id), undefined, `alert ${id} removed`)
  t.equal(await live.platform.catalog.alerts.eventCount(raised), 0, 'its events too')
})

t.test('threshold alert on the live stream: levels, hysteresis, events per alert', async (t) => {
  const live = await livePlatform(t)
  const pid = await live.project('Live')
  const made = await live.http('POST', `/v2/alert/threshold?project_id=${pid}`, threshold('room/temp'))
  const id = made.body.resource.id
  const send = (values: number[], startMinute: number) =>
    live.http('POST', `/v2/project/${pid}/timeseries`, { 'room/temp': values.map((value, i) => ({ time: new Date(Date.UTC(2024, 0, 1, 0, startMinute + i)).toISOString(), value })) })
  t.equal((await send([20, 26, 24, 31, 29, 27, 22, 4, 6, 8], 0)).status, 200)
  const events = async () => (await live.http('GET', `/v2/project/${pid}/alert/${id}/events?per_page=100`)).body
  const seen = await waitFor(async () => { const e = await events(); return e.meta.total_items === 6 && e }, { what: 'six raises and resets' })
  t.same(seen.items.reverse().map((e: any) => [e.kind, e.level, e.previous_level, e.value, e.time]), [
    ['raise', 'warn', null, 26, '2024-01-01T00:01:00Z'], // 24 holds warn (reset below 23)
    ['raise', 'crit', 'warn', 31, '2024-01-01T00:03:00Z'], // 29 holds crit (reset below 28)
    ['raise', 'warn', 'crit', 27, '2024-01-01T00:05:00Z'], // de-escalation
    ['reset', 'warn', null, 22, '2024-01-01T00:06:00Z'],
    ['raise', 'info', null, 4, '2024-01-01T00:07:00Z'], // lower side; 6 holds (reset above 7)
    ['reset', 'info', null, 8, '2024-01-01T00:09:00Z'],
  ])
  t.match((await live.http('GET', `/v2/project/${pid}/alert/${id}`)).body.state, { raised: false, level: null })
  await send([40], 20)
  await waitFor(async () => (await live.http('GET', `/v2/project/${pid}/alert/${id}`)).body.state.level === 'crit', { what: 'the alert to show crit' })
  const page = await live.http('GET', `/v2/project/${pid}/alert/${id}/events?per_page=2&page=2`)
  t.same(page.body.items.map((e: any) => [e.kind, e.level]), [['raise', 'info'], ['reset', 'warn']], 'newest first: page 2 holds events 5 and 4')
  t.same(page.body.meta, { current_page: 2, items_per_page: 2, total_items: 7, total_pages: 4 })
})
