// Issue 9, the guide's rule for MQTT messages "from another company": an account of company
// Beta tries every message kind on company Acme's project (lines, META in both topic forms,
// CONTROLS acknowledgements and setpoints) and every subscription to it, over real MQTT
// clients. Each publish is refused (counted, connection closed), each subscription refused
// (SUBACK 128), nothing of Acme changes, and Acme's own traffic never reaches Beta.
import t from 'tap'
import { livePlatform, until } from '../helpers/live-platform.ts'
import { watchClose } from '../helpers/wait.ts'

const T = 1_700_000_000_000_000_000n
const BETA = { email: 'admin@beta.test', password: 'beta-admin-pass' }

t.test('an account of another company reaches no message, topic or datapoint of Acme\'s project', async (t) => {
  const live = await livePlatform(t)
  const broker = live.platform.broker
  const pid = await live.project('Acme site')
  const s = await live.platform.catalog.projects.settings(pid)
  const acme = await live.connect(await live.account(pid, 'acme-dev', 'write'))
  await acme.publishAsync(`lintel/p${pid}`, `temp value=1 ${T}`, { qos: 1 })
  await acme.publishAsync(`META/lintel/p${pid}`, JSON.stringify({ entity: { id: 'temp', type: 'datapoint', source: 'acme' }, mode: ['clean'], tags: [{ key: 'room', value: 'A' }] }), { qos: 1 })

  await live.platform.catalog.createCompanyWithAdmin('Beta', BETA)
  const betaPid = (await live.http('POST', '/v2/company/project', { name: 'Beta site' }, BETA)).body.resource.project.id as number
  const made = await live.http('POST', `/v2/project/${betaPid}/mqttuser`, { username: 'beta-dev', password: 'beta-dev-password', rights: 'write' }, BETA)
  t.equal(made.status, 201)
  const beta = { username: 'beta-dev', password: 'beta-dev-password' }

  // Subscriptions to Acme's topics: refused one by one, the connection stays.
  const spy = await live.connect(beta)
  for (const filter of [`lintel/p${pid}/#`, `lintel/p${pid}`, `META/lintel/p${pid}`, `META/${s.load_balancing_group}/${s.project_handle}`, `CONTROLS/lintel/p${pid}`, '#', 'lintel/#', '+/lintel/#']) {
    await t.rejects(spy.subscribeAsync(filter, { qos: 1 }), /Subscribe error/, `SUBACK 128: ${filter}`)
  }
  const seen: string[] = []
  await spy.subscribeAsync(`lintel/p${betaPid}/#`, { qos: 1 })
  spy.on('message', (topic, p) => seen.push(`${topic} ${String(p)}`))

  // Every message kind published onto Acme's project: refused, counted for Beta's project, connection closed.
  const controls: string[] = []
  broker.controls.subscribe((m) => controls.push(JSON.stringify(m.message)))
  const attempts: [string, string][] = [
    [`lintel/p${pid}`, `temp value=666 ${T + 1n}`],
    [`lintel/p${pid}/sub/topic`, `planted value=1 ${T}`],
    [`META/lintel/p${pid}`, JSON.stringify({ entity: { id: 'temp', type: 'datapoint', source: 'beta' }, mode: ['clean'], tags: [{ key: 'room', value: 'B' }] })],
    [`META/${s.load_balancing_group}/${s.project_handle}`, JSON.stringify({ entity: { id: 'planted-meta', type: 'datapoint', source: 'beta' }, mode: ['add'], tags: [] })],
    [`CONTROLS/lintel/p${pid}`, JSON.stringify({ type: 'SPTACK', swop_version: 0.1, reference: 'r-1', datapoint: 'temp', result: 'accepted' })],
    [`CONTROLS/lintel/p${pid}`, JSON.stringify({ type: 'NEWSPT', swop_version: 0.1, datapoint: 'temp', value: 1, priority: 8 })],
  ]
  for (const [i, [topic, payload]] of attempts.entries()) {
    const before = broker.metricsOf([betaPid]).publishes_refused
    const c = await live.connect(beta)
    const gone = watchClose(c)
    c.publish(topic, payload, { qos: 1 })
    await gone.within({ what: `Beta's connection publishing on ${topic}`, cause: { what: 'the publish was refused and counted for Beta', check: () => broker.metricsOf([betaPid]).publishes_refused === before + 1 } })
    t.equal(broker.metricsOf([betaPid]).publishes_refused - before, 1, `refused and closed: ${topic} (#${i})`)
  }
  t.equal(broker.metricsOf([pid]).publishes_refused, 0, 'nothing counted against Acme')
  t.same(controls, [], 'no control message was routed')

  // Acme is unchanged: its data, tags and datapoints.
  t.same((await live.read(pid, 'temp')).data.map((d: { value: number }) => d.value), [1])
  const dps = (await live.http('GET', `/v2/project/${pid}`)).body.datapoints as { dataPointID: string; tags: Record<string, string> }[]
  t.same(dps.map((d) => [d.dataPointID, d.tags]), [['temp', { room: 'A' }]], 'no datapoint planted, no tag changed')

  // Acme's traffic never reaches Beta's subscriber, while Beta's own does.
  await acme.publishAsync(`lintel/p${pid}/later`, `temp value=2 ${T + 2n}`, { qos: 1 })
  const own = await live.connect(beta)
  await own.publishAsync(`lintel/p${betaPid}/x`, `b value=1 ${T}`, { qos: 1 })
  t.ok(await until(() => seen.length >= 1), 'Beta\'s subscriber hears its own project')
  t.same(seen, [`lintel/p${betaPid}/x b value=1 ${T}`], 'and nothing of Acme')
})
