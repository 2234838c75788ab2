// The MQTT broker on the PostgreSQL catalog (issue 17): the reach check of an account with a
// tag-based TagAuth works without a synchronous catalog (ingest/mqtt/tag-cache.ts), and a
// tag change made on another node (its own platform process on the same database) reaches
// this broker within 1 s through the catalog's change notifications.
import t from 'tap'
import { mkdirSync } from 'node:fs'
import type { MqttClient } from 'mqtt'
import { livePlatform } from '../helpers/live-platform.ts'
import type { Login } from '../helpers/platform.ts'
import { testDatabase } from '../helpers/postgres.ts'
import { waitFor } from '../helpers/wait.ts'

const T = 1_700_000_000_000_000_000n
const S = 1_000_000_000n // one second in ns
type Live = Awaited<ReturnType<typeof livePlatform>>

/** A node of the platform (all roles) on the PostgreSQL catalog at `url`, in a data directory of its own. */
async function node(t: Parameters<typeof livePlatform>[0], url: string, name: string): Promise<Live> {
  const dir = `${t.testdir()}/${name}`
  mkdirSync(dir, { recursive: true })
  return livePlatform(t, { LINTEL_CATALOG: 'postgres', LINTEL_POSTGRES_URL: url, LINTEL_DATA_DIR: dir })
}

const meta = (c: MqttClient, topic: string, id: string, room: string) =>
  c.publishAsync(`META/${topic}`, JSON.stringify({ entity: { id, type: 'datapoint', source: 'setup' }, mode: ['clean'], tags: [{ key: 'room', value: room }] }), { qos: 1 })

t.test('broker on PostgreSQL: TagAuth reach from the tag cache, tag changes of another node within 1 s', async (t) => {
  const url = await testDatabase(t)
  if (!url) return
  const a = await node(t, url, 'a')
  const b = await node(t, url, 'b')
  const pid = await a.project('Reach')
  const topic = `lintel/p${pid}`
  const setup = await a.account(pid, 'full', 'write')
  const full = await a.connect(setup)
  await full.publishAsync(topic, [`room-a/temp value=1 ${T}`, `room-b/temp value=1 ${T}`].join('\n'), { qos: 1 })
  await meta(full, topic, 'room-a/temp', 'A')
  await meta(full, topic, 'room-b/temp', 'B')

  // A user whose role reaches room A only creates the device's account.
  const company = (await a.http('GET', '/v2/company')).body.company.id
  const user: Login = { email: 'narrow@live.test', password: 'narrow-password' }
  const made = await a.http('POST', '/v2/company/user', { company_id: company, firstName: 'N', lastName: 'T', ...user })
  t.equal(made.status, 201)
  const role = await a.http('POST', `/v2/project/${pid}/role`, { name: 'room-a', authed_endpoints: [50, 52, 60], authed_tags: [{ key: 'room', value: 'A', read: true, write: true }] })
  t.equal((await a.http('POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${made.body.resource.id}`)).status, 201)
  const created = await a.http('POST', `/v2/project/${pid}/mqttuser`, { username: 'narrow', password: 'narrow-password', rights: 'write' }, user)
  t.equal(created.status, 201, JSON.stringify(created.body))
  const narrow = await a.connect({ username: 'narrow', password: 'narrow-password' })

  const values = async (id: string) => (await a.read(pid, id)).data.map((d: { value: number }) => d.value)
  const outside = () => a.platform.broker.metrics().lines_outside_grant ?? 0
  await narrow.publishAsync(topic, [`room-a/temp value=2 ${T + S}`, `room-b/temp value=2 ${T + S}`].join('\n'), { qos: 1 })
  t.same(await values('room-a/temp'), [1, 2], 'a publish inside the TagAuth is stored')
  t.same(await values('room-b/temp'), [1], 'a publish outside it is refused')
  t.equal(outside(), 1, 'and counted')

  // Node B retags room-b into room A (META through its own broker): node A's broker sees it.
  const other = await b.connect(setup)
  await meta(other, topic, 'room-b/temp', 'A')
  const changedAt = Date.now() // acknowledged by B: committed
  let n = 3
  await waitFor(async () => {
    await narrow.publishAsync(topic, `room-b/temp value=${n} ${T + BigInt(n) * S}`, { qos: 1 })
    n++
    return (await values('room-b/temp')).length > 1
  }, { what: 'node A to admit room-b after its retag on node B', timeoutMs: 1000, intervalMs: 20 })
  t.ok(Date.now() - changedAt <= 1000, 'within 1 s')

  // And the other way: retagged out of room A on B, refused again on A.
  await meta(other, topic, 'room-a/temp', 'C')
  const refusedBefore = outside()
  await waitFor(async () => {
    await narrow.publishAsync(topic, `room-a/temp value=${n++} ${T + BigInt(n) * S}`, { qos: 1 })
    return outside() > refusedBefore
  }, { what: 'node A to refuse room-a after its retag on node B', timeoutMs: 1000, intervalMs: 20 })
})
