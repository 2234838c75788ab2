// Issue 29 item 3: setpoint answers (SPTACK) count only from the accounts a project designates
// as its edge agents. A write account that is not one answers: dropped, counted
// (controls_not_edge), the operation stays `requested`; another company's edge account is
// refused; the project's edge account moves it to `written`. Designating one over HTTP needs
// write rights and the setpoint endpoint (141) in the project; the operator tool designates
// its own accounts. Two companies: Live (A) and Beta (B).
import t from 'tap'
import { until } from '../helpers/live-platform.ts'
import type { Login } from '../helpers/platform.ts'
import { watchClose } from '../helpers/wait.ts'
import { setpointSite } from '../helpers/setpoint-site.ts'

const B: Login = { email: 'admin@beta.test', password: 'beta-admin-pass' }
const NULLS = new Array(16).fill(null)

t.test('SPTACK: a write account that is not an edge agent, another company\'s edge agent, the designated one', async (t) => {
  const site = await setpointSite(t, { LINTEL_SETPOINT_TIMEOUT_MS: '60000' })
  await site.platform.catalog.createCompanyWithAdmin('Beta', B)
  await site.agent.stop() // the answers below come from the accounts under test only
  const metrics = () => site.platform.broker.metricsOf([site.pid])
  const pending = (await site.write('dataPointID=ahu-1.sp&value=22&acked=true')).body.resource.reference as string
  const ack = JSON.stringify({ type: 'SPTACK', swop_version: 0.1, reference: pending, datapoint: 'ahu-1.sp', result: 'written', priorityArray: NULLS })
  const topicA = `CONTROLS/${site.group}/${site.handle}`

  // A full write account of project A, made by the admin, not designated.
  const plain = await site.connect(await site.account(site.pid, 'gw-plain', 'write'))
  await plain.publishAsync(topicA, ack, { qos: 1 })
  t.equal(metrics().controls_not_edge, 1, 'dropped and counted')
  t.equal(metrics().controls_outside_grant, 0, 'the datapoint is in its reach: refused for not being an edge agent only')
  // Another company's designated edge account: its own topic is another project, A's is refused.
  const bPid = (await site.http('POST', '/v2/company/project', { name: 'B-site' }, B)).body.resource.project.id
  await site.platform.catalog.setpoints.setSettings(bPid, { enabled: true })
  const bAcct = await site.http('POST', `/v2/project/${bPid}/mqttuser`, { username: 'beta-edge', password: 'beta-edge-password', rights: 'write', edge: true }, B)
  t.same([bAcct.status, bAcct.body.resource.edge], [201, true])
  const beta = await site.connect({ username: 'beta-edge', password: 'beta-edge-password' })
  const betaClosed = watchClose(beta)
  beta.publish(topicA, ack, { qos: 1 })
  await betaClosed.within({ what: 'the other company\'s edge connection answering on A\'s topic', cause: { what: 'its publish was refused', check: () => site.platform.broker.metricsOf([bPid]).publishes_refused === 1 } })
  t.equal((await site.op(pending)).body.status, 'requested', 'no answer moved the operation')

  // The project's designated edge account.
  const own = await site.connect(site.edgeAccount)
  await own.publishAsync(topicA, ack, { qos: 1 })
  t.ok(await until(async () => (await site.op(pending)).body.status === 'written'), 'the edge agent\'s answer is taken')
  t.equal(metrics().controls_not_edge, 1)

  // No longer designated (the operator's `lintel mqtt edge --disable`): the broker's grant tick
  // ends the open connection within about a second; the answer of the next login is dropped.
  const ownClosed = watchClose(own)
  const flipped = Date.now()
  t.equal(await site.platform.catalog.mqttAccounts.setEdge(site.edgeAccount.username, false), true)
  await ownClosed.within({ what: 'the connection of the account no longer designated', timeoutMs: 5_000 })
  t.ok(Date.now() - flipped < 2_500, `closed ${Date.now() - flipped} ms after the change (tick: 1 s)`)
  const next = (await site.write('dataPointID=ahu-2.sp&value=23&acked=true')).body.resource.reference as string
  const again = await site.connect(site.edgeAccount)
  await again.publishAsync(topicA, JSON.stringify({ type: 'SPTACK', swop_version: 0.1, reference: next, datapoint: 'ahu-2.sp', result: 'written', priorityArray: NULLS }), { qos: 1 })
  t.equal(metrics().controls_not_edge, 2, 'the next answer is dropped')
  t.equal((await site.op(next)).body.status, 'requested')
})

t.test('HTTP: designating an edge account needs write rights and the setpoint endpoint; other companies cannot', async (t) => {
  const site = await setpointSite(t)
  await site.platform.catalog.createCompanyWithAdmin('Beta', B)
  const pid = site.pid
  const company = (await site.http('GET', '/v2/company')).body
  const user = async (name: string, role: { authed_endpoints: number[]; authed_tags?: object[] }): Promise<Login> => {
    const login = { email: `${name}@live.test`, password: `${name}-password` }
    const u = await site.http('POST', '/v2/company/user', { company_id: company.company.id, firstName: name, lastName: 'Test', ...login })
    const r = await site.http('POST', `/v2/project/${pid}/role`, { name: `${name}-role`, ...role })
    await site.http('POST', `/v2/project/${pid}/role/${r.body.resource.id}/user/${u.body.resource.id}`)
    return login
  }
  const create = (body: object, who?: Login) => site.http('POST', `/v2/project/${pid}/mqttuser`, { password: 'gw-password-1', rights: 'write', ...body }, who)

  // Without the setpoint endpoint: a write account, but no edge agent.
  const both = ['ahu-1.sp', 'ahu-2.sp'].map((value) => ({ key: 'dataPointID', value, read: true, write: true }))
  const noSetpoint = await user('nosp', { authed_endpoints: [50, 52, 60, 61], authed_tags: both })
  const refused = await create({ username: 'gw-a', edge: true }, noSetpoint)
  t.same([refused.status, refused.body.error], [403, 'Cannot designate an edge account: you do not hold endpoint 141 - POST /v2/datapoint/setpoint in this project, and an edge account\'s answers complete setpoint writes'])
  t.equal((await site.platform.catalog.mqttAccounts.findValid('gw-a')), undefined, 'nothing created')
  const plain = await create({ username: 'gw-b' }, noSetpoint)
  t.same([plain.status, plain.body.resource.edge], [201, false], 'edge is false by default')
  const put = await site.http('PUT', `/v2/project/${pid}/mqttuser/${plain.body.resource.id}`, { edge: true }, noSetpoint)
  t.equal(put.status, 403, 'nor by a change')
  // Nor take over the project's edge account by changing its password.
  const takeover = await site.http('PUT', `/v2/project/${pid}/mqttuser/${site.edgeAccount.id}`, { password: 'attacker-password' }, noSetpoint)
  t.equal(takeover.status, 403, 'changing an edge account needs the setpoint endpoint too')
  // Read rights: an edge agent publishes its answers.
  const ro = await create({ username: 'gw-c', rights: 'read', edge: true })
  t.same([ro.status, ro.body.error], [400, 'An edge account needs write rights: it publishes its setpoint answers'])
  // A narrower TagAuth with the setpoint endpoint: an edge account with the user's reach.
  const narrow = await user('narrow', { authed_endpoints: [50, 52, 60, 141], authed_tags: [{ key: 'dataPointID', value: 'ahu-2.sp', read: true, write: true }] })
  const nAcct = await create({ username: 'gw-n', edge: true }, narrow)
  t.same([nAcct.status, nAcct.body.resource.edge], [201, true])
  const gw = await site.connect({ username: 'gw-n', password: 'gw-password-1' })
  await site.agent.stop()
  const pending = (await site.write('dataPointID=ahu-1.sp&value=22&acked=true')).body.resource.reference as string
  const before = site.platform.broker.metricsOf([pid]).controls_outside_grant
  await gw.publishAsync(`CONTROLS/${site.group}/${site.handle}`, JSON.stringify({ type: 'SPTACK', swop_version: 0.1, reference: pending, datapoint: 'ahu-1.sp', result: 'written', priorityArray: NULLS }), { qos: 1 })
  t.equal(site.platform.broker.metricsOf([pid]).controls_outside_grant, before + 1, 'an edge account answers only inside its reach')
  t.equal((await site.op(pending)).body.status, 'requested')
  // Another company cannot designate an account in A's project.
  const other = await site.http('POST', `/v2/project/${pid}/mqttuser`, { username: 'beta-in-a', password: 'beta-password-1', rights: 'write', edge: true }, B)
  t.equal(other.status, 404, 'another company\'s project is not found')
  t.equal(await site.platform.catalog.mqttAccounts.findValid('beta-in-a'), undefined)
  t.same((await site.http('GET', `/v2/project/${pid}/mqttuser/${site.edgeAccount.id}`)).body.edge, true, 'the account shows its designation')
})
