// Acknowledge and clear (issue 34 item 3; endpoints 200, 201) on a listening platform with a
// webhook receiver: the condition table's moves, the events with who and a comment, the
// payloads, and the rule that an acknowledged alert notifies no further raise until it resets.
// Refused moves and bad input change nothing.
import t, { type Test } from 'tap'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { livePlatform, ADMIN } from '../helpers/live-platform.ts'
import { waitFor } from '../helpers/wait.ts'

async function receiver(t: Test) {
  const got: any[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => { body += c })
    req.on('end', () => { got.push(JSON.parse(body)); res.end() })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, got }
}

t.test('acknowledge silences raises until the reset; clear resets by hand and the condition raises anew', async (t) => {
  const hook = await receiver(t)
  const live = await livePlatform(t, { LINTEL_WEBHOOK_ALLOW: '127.0.0.1', LINTEL_ALERT_NOTIFY_INTERVAL_S: '0' })
  const pid = await live.project('Acks')
  const a = (await live.http('POST', `/v2/alert/threshold?project_id=${pid}`, {
    name: 'AHU3 supply air', dataPointID: 'ahu3/supply_temp', thresholds: { warn: { upper: 26, upper_reset: 24 }, crit: { upper: 30 } },
    notification: { webhook: { url: hook.url, secret: 'a-secret-of-16-chars' } },
  })).body.resource
  const post = (time: string, value: number) => live.http('POST', `/v2/project/${pid}/timeseries`, { 'ahu3/supply_temp': [{ time, value }] })
  const events = async () => (await live.http('GET', `/v2/project/${pid}/alert/${a.id}/events`)).body.items
  const ack = (body?: object) => live.http('POST', `/v2/alert/${a.id}/acknowledge?project_id=${pid}`, body)
  const clear = (body?: object) => live.http('POST', `/v2/alert/${a.id}/clear?project_id=${pid}`, body)
  const types = () => hook.got.map((p) => `${p.type}${p.event.level ? ':' + p.event.level : ''}`)

  // Nothing to acknowledge or clear while Normal: 409 naming why, nothing recorded.
  t.same([(await ack()).status, (await ack()).body.error], [409, "Alert 'AHU3 supply air' is not raised: there is nothing to acknowledge"])
  t.same([(await clear()).status, (await clear()).body.error], [409, "Alert 'AHU3 supply air' is not raised: there is nothing to clear"])
  t.same(await events(), [])

  await post('2024-04-01T08:01:00Z', 27)
  await waitFor(() => hook.got.length === 1, { what: 'the raise notified' })
  t.match((await live.http('GET', `/v2/project/${pid}/alert/${a.id}`)).body.state, { raised: true, level: 'warn', condition: 'Raised', acknowledged: null })

  // Bad input: refused by the schema, nothing recorded.
  const long = await ack({ comment: 'x'.repeat(2001) })
  t.same([long.status, long.body.error], [400, 'Invalid input: body/comment must NOT have more than 2000 characters'])
  t.equal((await ack({ note: 'x' })).status, 400, 'an unknown field')
  t.equal((await live.http('GET', `/v2/project/${pid}/alert/${a.id}`)).body.state.condition, 'Raised', 'still raised, not acknowledged')

  const acked = await ack({ comment: 'on my way to AHU3' })
  t.equal(acked.status, 200, JSON.stringify(acked.body))
  t.match(acked.body.resource.state, { raised: true, level: 'warn', condition: 'Acknowledged', acknowledged: { by: ADMIN.email, at: String, comment: 'on my way to AHU3' } })
  const twice = await ack({ comment: 'me too' })
  t.same([twice.status, twice.body.error], [409, "Alert 'AHU3 supply air' is already acknowledged"])
  await waitFor(() => hook.got.length === 2, { what: 'the acknowledgement notified' })
  t.match(hook.got[1], { type: 'alert.ack', alert: { id: a.id }, event: { kind: 'ack', level: 'warn', by: ADMIN.email, comment: 'on my way to AHU3', value: null } })

  // Acknowledged: the escalation to crit is an event, not a notification; the reset is notified
  // (one lane, oldest first: a notified crit raise would arrive before it).
  await post('2024-04-01T08:02:00Z', 31)
  await waitFor(async () => (await events()).length === 3, { what: 'the crit raise recorded' })
  t.equal((await live.http('GET', `/v2/project/${pid}/alert/${a.id}`)).body.state.condition, 'Acknowledged', 'an escalation keeps the acknowledgement')
  await post('2024-04-01T08:03:00Z', 20)
  await waitFor(() => hook.got.length === 3, { what: 'the reset notified' })
  t.same(types(), ['alert.raise:warn', 'alert.ack:warn', 'alert.reset:crit'], 'the escalation was not notified')
  t.match((await live.http('GET', `/v2/project/${pid}/alert/${a.id}`)).body.state, { raised: false, condition: 'Normal', acknowledged: null })

  // After the reset the next raise notifies again; clear resets it by hand, and a condition that still holds raises anew.
  await post('2024-04-01T08:04:00Z', 28)
  await waitFor(() => hook.got.length === 4, { what: 'the next raise notified' })
  const cleared = await clear({ comment: 'sensor recalibrated' })
  t.equal(cleared.status, 200, JSON.stringify(cleared.body))
  t.match(cleared.body.resource.state, { raised: false, level: null, condition: 'Normal', acknowledged: null })
  await waitFor(() => hook.got.length === 5, { what: 'the clear notified' })
  t.match(hook.got[4], { type: 'alert.clear', event: { kind: 'clear', level: 'warn', by: ADMIN.email, comment: 'sensor recalibrated' } })
  await post('2024-04-01T08:05:00Z', 28)
  await waitFor(() => hook.got.length === 6, { what: 'the raise after the clear' })
  t.same(types(), ['alert.raise:warn', 'alert.ack:warn', 'alert.reset:crit', 'alert.raise:warn', 'alert.clear:warn', 'alert.raise:warn'])

  const history = await events()
  t.same(history.map((e: any) => [e.kind, e.level, e.by ?? null, e.comment ?? null]), [
    ['raise', 'warn', null, null], ['clear', 'warn', ADMIN.email, 'sensor recalibrated'], ['raise', 'warn', null, null],
    ['reset', 'crit', null, null], ['raise', 'crit', null, null], ['ack', 'warn', ADMIN.email, 'on my way to AHU3'], ['raise', 'warn', null, null],
  ], 'the history, newest first, with who and why')
})

t.test('a disabled alert has nothing to acknowledge; an unknown or foreign alert is 404', async (t) => {
  const live = await livePlatform(t, { LINTEL_ALERT_NOTIFY_INTERVAL_S: '0' })
  const pid = await live.project('P')
  const a = (await live.http('POST', `/v2/alert/threshold?project_id=${pid}`, { name: 'hot', dataPointID: 'x', thresholds: { crit: { upper: 1 } }, notification: { log: true } })).body.resource
  await live.http('POST', `/v2/project/${pid}/timeseries`, { x: [{ time: '2024-01-01T00:00:00Z', value: 5 }] })
  await waitFor(async () => (await live.http('GET', `/v2/project/${pid}/alert/${a.id}`)).body.state.raised, { what: 'the raise' })
  t.equal((await live.http('POST', `/v2/alert/${a.id}/disable?project_id=${pid}`)).status, 200)
  const res = await live.http('POST', `/v2/alert/${a.id}/acknowledge?project_id=${pid}`)
  t.same([res.status, res.body.error], [409, "Alert 'hot' is not raised: there is nothing to acknowledge"], 'disabling reset it')
  t.equal((await live.http('POST', `/v2/alert/${a.id + 100}/acknowledge?project_id=${pid}`)).status, 404)
  const other = await live.project('Other')
  t.equal((await live.http('POST', `/v2/alert/${a.id}/clear?project_id=${other}`)).status, 404, 'not through another project')
})
