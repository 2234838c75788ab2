// Tags in MQTT line protocol (spec 3, line format rule 4; issue 15, spec drift 2): a real MQTT
// client publishes `<id>,<k>=<v>,... value=<x> <t>` lines; the broker stores the observation
// and keeps the tag set as dynamic, time-dependent tags (catalog/series-tags.ts): changes only,
// per series from the observation's time on, bounded per series and per project, with
// changes over a bound counted (tag_changes_over_limit) and logged.
import t from 'tap'
import mqtt, { type MqttClient } from 'mqtt'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { DatapointResolver } from '../../ingest/datapoint-resolver.ts'
import { startBroker } from '../../ingest/mqtt/broker.ts'
import { loadTlsMaterial } from '../../ingest/mqtt/tls-material.ts'

const S = 1_700_000_000 // seconds; lines carry nanoseconds
const ns = (s: number) => `${s}000000000`
const us = (s: number) => s * 1_000_000

t.test('tag sets of MQTT lines are stored as changes per series, bounded', async (t) => {
  const dir = t.testdir()
  const catalog = Catalog.open(dir, adminEndpoints)
  const store = await openSqliteStore({ dir })
  const tls = await loadTlsMaterial({ dataDir: dir })
  const { company, user } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'admin-pass-1' })
  const { project } = await catalog.projects.create(company.id, { name: 'P' }, user.id)
  const prefix = `lintel/${(await catalog.projects.settings(project.id)).project_handle}`
  await catalog.mqttAccounts.create(project.id, { username: 'edge', password: 'edge-password', rights: 'write', validUntil: Date.now() + 600_000 })
  const infos: { obj: Record<string, unknown>; msg: string }[] = []
  const log = { info: (obj: object, msg: string) => infos.push({ obj: obj as Record<string, unknown>, msg }), warn() {}, error() {} }
  const broker = await startBroker({
    catalog, ingest: (_p, batch) => store.append(batch), resolver: new DatapointResolver(catalog), log,
    refusalDelayMs: 0, listen: { host: '127.0.0.1', tlsPort: 0, wsPort: 0, tcpPort: 0, cert: tls.cert, key: tls.key },
  })
  let client: MqttClient | undefined
  t.teardown(async () => { await client?.endAsync(true); await broker.close(); await store.close(); catalog.close() })
  client = await mqtt.connectAsync(`mqtt://127.0.0.1:${broker.ports.tcp}`, { username: 'edge', password: 'edge-password', reconnectPeriod: 0 })
  const publish = (lines: string) => client!.publishAsync(`${prefix}/sensors`, lines, { qos: 1 }) // resolves on PUBACK
  const series = async (id: string) => (await catalog.datapoints.find(project.id, id))!.id
  const history = async (id: string) => (await catalog.seriesTags.history(await series(id))).map((r) => `${r.key}=${r.value}@${r.valid_from / 1e6 - S}`)

  await publish(`temp,room=1,floor=2 value=21.5 ${ns(S + 10)}`)
  t.same(await history('temp'), ['floor=2@10', 'room=1@10'], 'the tag set is stored from the observation time on')
  t.same((await store.read(await series('temp'), {})).map((p: { value: number }) => p.value), [21.5], 'the observation itself is stored, named without its tags')
  t.match(broker.metrics(), { lines_stored: 1, tag_changes_stored: 2 })

  await publish(`temp,room=1,floor=2 value=21.6 ${ns(S + 20)}\ntemp,floor=2,room=1 value=21.7 ${ns(S + 30)}`)
  t.same(await history('temp'), ['floor=2@10', 'room=1@10'], 'unchanged values store nothing')
  t.match(broker.metrics(), { lines_stored: 3, tag_changes_stored: 2 })

  await publish(`temp,room=2 value=22 ${ns(S + 40)}`)
  t.same(await history('temp'), ['floor=2@10', 'room=1@10', 'room=2@40'], 'a changed value starts a new period; other keys keep theirs')
  t.same({ ...await catalog.seriesTags.at(await series('temp'), us(S + 39)) }, { floor: '2', room: '1' }, 'tags in force before the change')
  t.same({ ...await catalog.seriesTags.at(await series('temp'), us(S + 40)) }, { floor: '2', room: '2' }, 'and from it on')

  await publish(`temp,room=1 value=20 ${ns(S + 5)}`)
  t.same(await history('temp'), ['floor=2@10', 'room=1@5', 'room=2@40'], 'a late line moves the start of its value back: the later repeat is no change any more')

  await publish(`"Raum 1",ort=Halle\\ Nord,typ=a\\,b value=1 ${ns(S)}`)
  t.same(await history('Raum 1'), ['ort=Halle Nord@0', 'typ=a,b@0'], 'escaped blanks and commas in tag values')

  // Bounds: 3 rows per series, then the project's total.
  await catalog.seriesTags.setLimits({ perSeries: 3 })
  await publish(`hum,a=1,b=1 value=40 ${ns(S)}\nhum,c=1,d=1 value=41 ${ns(S + 1)}`)
  t.same(await history('hum'), ['a=1@0', 'b=1@0', 'c=1@1'], 'at most 3 changes per series')
  t.equal(broker.metrics().tag_changes_over_limit, 1, 'the change over the bound is counted')
  t.match(infos.find((i) => i.msg === 'mqtt: tags dropped')?.obj, { username: 'edge', project_id: project.id, topic: `${prefix}/sensors`, reason: 'tag changes over the limit (per series or per project): 1 not stored' }, 'and logged')
  await publish(`hum,a=1 value=42 ${ns(S + 2)}`)
  t.equal(broker.metrics().tag_changes_over_limit, 1, 'an unchanged value at the bound is no overflow')
  t.same((await store.read(await series('hum'), {})).length, 3, 'observations are stored whatever happens to their tags')

  const rows = (await history('temp')).length + (await history('Raum 1')).length + (await history('hum')).length
  await catalog.seriesTags.setLimits({ perSeries: 1000, perProject: rows + 1 })
  await publish(`co2,x=1,y=1 value=400 ${ns(S)}`)
  t.same(await history('co2'), ['x=1@0'], 'the project bound holds across series')
  t.equal(broker.metrics().tag_changes_over_limit, 2)
  t.same(broker.metricsOf([project.id]).tag_changes_over_limit, 2, 'counted for the project')
})
