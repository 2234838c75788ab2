// The operator's Prometheus endpoint (issue 34 item 4): off by default; on its own listener,
// behind the operator's token; every metric docs/metrics.md names is served with its type, and
// the values move with real traffic (HTTP and MQTT ingest, a CSV import, a virtual datapoint,
// an alert, reads). GET /v2/system/metrics stays the company's view.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ADMIN, livePlatform } from '../helpers/live-platform.ts'
import { basic } from '../helpers/platform.ts'
import { waitFor } from '../helpers/wait.ts'
import { samples } from '../helpers/prometheus.ts'
import { loadConfig } from '../../server/config.ts'

const TOKEN = 'scrape-token-0123456789'
const DOC = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'metrics.md'), 'utf8')
/** The metrics the guide names, with their types: rows `| \`name\` | type | ...`. */
const documented = [...DOC.matchAll(/^\| `(lintel_[a-z_]+)` \| (counter|gauge|histogram) \|/gm)].map((m) => ({ name: m[1], type: m[2] }))

t.test('off by default: no listener, and the API does not serve it', async (t) => {
  const live = await livePlatform(t)
  t.equal(live.platform.metricsAddress, undefined)
  t.equal((await fetch(`${live.platform.address}/metrics`)).status, 404)
  t.throws(() => loadConfig({ LINTEL_METRICS_TOKEN: TOKEN }), /LINTEL_METRICS_TOKEN is set but LINTEL_METRICS_PORT is not/)
  t.throws(() => loadConfig({ LINTEL_METRICS_PORT: '9464', LINTEL_METRICS_TOKEN: 'short' }), /LINTEL_METRICS_TOKEN must be 16 to 200 characters/)
  t.throws(() => loadConfig({ LINTEL_METRICS_PORT: 'x' }), /LINTEL_METRICS_PORT must be an integer from 0 to 65535, got 'x'/)
})

t.test('on its own listener with a token: names, types, and values that move', async (t) => {
  t.ok(documented.length >= 20, `docs/metrics.md names the metrics (${documented.length})`)
  const live = await livePlatform(t, { LINTEL_METRICS_PORT: '0', LINTEL_METRICS_TOKEN: TOKEN, LINTEL_ALERT_NOTIFY_INTERVAL_S: '0' })
  const url = `${live.platform.metricsAddress}/metrics`
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, 'bound to 127.0.0.1 by default')
  t.equal((await fetch(url)).status, 401, 'without the token')
  t.equal((await fetch(url, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status, 401, 'with another token')
  t.equal((await fetch(url.replace('/metrics', '/other'), { headers: { authorization: `Bearer ${TOKEN}` } })).status, 404)
  const scrape = async () => {
    const res = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })
    t.equal(res.status, 200)
    t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
    return res.text()
  }
  const first = await scrape()
  for (const { name, type } of documented) t.match(first, `# TYPE ${name} ${type}\n`, `${name} is a ${type}`)
  t.match(first, '# TYPE process_cpu_seconds_total counter', 'the process metrics too')
  const before = samples(first)

  const pid = await live.project('Metrics')
  await live.http('POST', `/v2/alert/threshold?project_id=${pid}`, { name: 'hot', dataPointID: 'room/temp', thresholds: { crit: { upper: 30 } }, notification: { log: true } })
  const vdp = await live.http('POST', `/v2/project/${pid}/virtual_datapoint?dataPointID=double&type=formula`, { pins: { P1: { dataPointID: 'room/temp' } }, parameters: { formula: 'P1 * 2' } })
  t.equal(vdp.status, 201, JSON.stringify(vdp.body))
  t.equal((await live.http('POST', `/v2/project/${pid}/virtual_datapoint/run?dataPointID=double&run=true`)).body.status, 'Running')
  t.equal((await live.http('POST', `/v2/project/${pid}/timeseries`, { 'room/temp': [{ time: '2024-04-01T08:00:00Z', value: 21 }, { time: '2024-04-01T08:01:00Z', value: 35 }] })).status, 200)
  const pub = await live.connect(await live.account(pid, 'dev', 'write'))
  await pub.publishAsync(`lintel/p${pid}`, 'room/humidity value=40 1711958400000000000\nroom/humidity value=41 1711958460000000000', { qos: 1 })
  const form = new FormData()
  form.append('import_file', new Blob(['datapoint,value,time\nmeter,1,2024-04-01T08:00:00Z\nmeter,2,2024-04-01T09:00:00Z\nmeter,3,2024-04-01T10:00:00Z\n'], { type: 'text/csv' }), 'm.csv')
  const imported = await fetch(`${live.platform.address}/v2/project/${pid}/importTimeseries?format=csv&on_error=abort`, { method: 'POST', headers: { authorization: basic(ADMIN) }, body: form })
  t.equal(imported.status, 200, await imported.clone().text())
  t.equal((await live.read(pid, 'room/temp')).data.length, 2)
  t.equal((await live.read(pid, 'room/temp', '&start=2024-04-01T00:00:00Z&end=2024-04-02T00:00:00Z&samplerate=1h')).data.length, 1, 'a sampled read')
  await waitFor(async () => (await live.read(pid, 'double')).data?.length === 2, { what: 'the virtual datapoint\'s outputs' })
  await waitFor(() => live.platform.alerts!.metrics().raised === 1, { what: 'the raise' })

  const after = samples(await waitFor(async () => {
    const text = await scrape()
    return samples(text).get('lintel_alert_notifications_delivered_total') === 1 ? text : undefined
  }, { what: 'the alert notification delivered' }))
  const moved = (key: string) => (after.get(key) ?? NaN) - (before.get(key) ?? 0)
  t.equal(moved('lintel_ingest_observations_total{transport="http"}'), 2, 'HTTP ingest')
  t.equal(moved('lintel_ingest_observations_total{transport="mqtt"}'), 2, 'MQTT ingest')
  t.equal(moved('lintel_ingest_observations_total{transport="import"}'), 3, 'CSV import')
  t.equal(moved('lintel_ingest_observations_total{transport="vdp"}'), 2, 'virtual datapoint outputs')
  t.equal(moved('lintel_vdp_outputs_total'), 2)
  t.ok(after.get('lintel_vdp_output_lag_seconds')! > 0, 'the outputs\' lag (event time 2024, so large)')
  t.ok(moved('lintel_store_commit_seconds_count') >= 1, 'commits timed')
  t.ok(moved('lintel_store_read_seconds_count{kind="raw"}') >= 1, 'raw reads timed')
  t.ok(moved('lintel_store_read_seconds_count{kind="sample"}') >= 1, 'sampled reads timed')
  t.ok(after.has('lintel_store_ingest_tail_rows'), 'the tail size is reported')
  t.equal(after.get('lintel_mqtt_connections'), 1, 'one MQTT client')
  t.equal(moved('lintel_mqtt_lines_stored_total'), 2)
  t.equal(moved('lintel_alert_raises_total'), 1)
  t.ok(moved('lintel_alert_evaluations_total') >= 2)
  t.equal(after.get('lintel_alerts_running'), 1)
  t.equal(after.get('lintel_alert_outbox_pending'), 0)
  t.equal(after.get('lintel_ingest_queue_pending'), 0)

  // A refused MQTT login moves the refusal counter.
  await t.rejects(live.connect({ username: 'nobody', password: 'wrong-password' }))
  const refused = samples(await scrape())
  t.equal((refused.get('lintel_mqtt_refusals_total{reason="login"}') ?? 0) - (after.get('lintel_mqtt_refusals_total{reason="login"}') ?? 0), 1, 'a refused login')

  // The company's view is unchanged: its own counters, none of the process's metrics.
  const company = await live.http('GET', '/v2/system/metrics')
  t.equal(company.status, 200)
  t.notOk(JSON.stringify(company.body).includes('lintel_'), 'no Prometheus names in the company view')
})
