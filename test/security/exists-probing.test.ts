// Issue 29 item 5: company Beta probes which user emails and MQTT usernames company Acme
// uses, through the 409 "already exists" of creating them. Each company has a budget of such
// answers; once spent, its creates answer 429 before any name is looked up, so 429 against
// 201 tells nothing either. Acme is never limited by Beta's probing.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { adminEndpoints } from '../../api/registry.ts'
import { buildApp } from '../../api/app.ts'
import { Catalog } from '../../catalog/index.ts'
import type { TimeseriesStore } from '../../engine/store/port.ts'
import { basic, type Login } from '../helpers/platform.ts'

t.test('probing names of another company through "already exists" is limited per company', async (t) => {
  const clock = { now: 1_000_000 }
  const catalog = Catalog.open(':memory:', adminEndpoints)
  const acme = { email: 'admin@acme.test', password: 'admin-pass-1' }
  const beta = { email: 'admin@beta.test', password: 'beta-pass-12' }
  const acmeId = (await catalog.createCompanyWithAdmin('Acme', acme)).user.company_id
  const betaId = (await catalog.createCompanyWithAdmin('Beta', beta)).user.company_id
  const app: FastifyInstance = await buildApp({ catalog, store: {} as TimeseriesStore, logger: false, existsProbes: { max: 3, windowMs: 60_000, now: () => clock.now } })
  t.teardown(async () => { await app.close(); catalog.close() })
  const call = async (who: Login, method: 'POST' | 'PUT', url: string, body: object) => {
    const res = await app.inject({ method, url, headers: { authorization: basic(who) }, payload: body })
    return { status: res.statusCode, body: res.json(), retryAfter: res.headers['retry-after'] }
  }
  const newUser = (who: Login, companyId: number, email: string) =>
    call(who, 'POST', '/v2/company/user', { company_id: companyId, firstName: 'P', lastName: 'Q', email, password: 'probe-pass-1' })
  const acmePid = (await call(acme, 'POST', '/v2/company/project', { name: 'A' })).body.resource.project.id
  const betaPid = (await call(beta, 'POST', '/v2/company/project', { name: 'B' })).body.resource.project.id
  t.equal((await call(acme, 'POST', `/v2/project/${acmePid}/mqttuser`, { username: 'acme-gw', password: 'acme-gw-pass', rights: 'read' })).status, 201)

  // Beta spends its budget of three "already exists" answers: emails and MQTT usernames alike.
  t.equal((await newUser(beta, betaId, 'admin@acme.test')).status, 409)
  t.equal((await call(beta, 'POST', `/v2/project/${betaPid}/mqttuser`, { username: 'acme-gw', password: 'beta-gw-pass', rights: 'read' })).status, 409)
  t.equal((await call(beta, 'PUT', '/v2/user', { email: 'admin@acme.test', current_password: beta.password })).status, 409)
  const refused = await newUser(beta, betaId, 'someone@acme.test')
  t.same({ status: refused.status, retryAfter: refused.retryAfter }, { status: 429, retryAfter: '60' }, 'then even a free name is refused: 429 discloses nothing')
  t.match(refused.body.error, /^Too many user emails that already exist were tried by this company \(3 per 1 min\): try again in 60 s$/)
  t.equal((await call(beta, 'POST', `/v2/project/${betaPid}/mqttuser`, { username: 'acme-other', password: 'beta-gw-pass', rights: 'read' })).status, 429)
  t.equal((await catalog.users.findByEmailWithHash('someone@acme.test')), undefined, 'nothing was created')

  // Acme is not limited by Beta's probing.
  t.equal((await newUser(acme, acmeId, 'new@acme.test')).status, 201)
  t.equal((await newUser(acme, acmeId, 'admin@beta.test')).status, 409, 'its own first conflict answers 409 as before')

  clock.now += 60_000
  t.equal((await newUser(beta, betaId, 'someone@beta.test')).status, 201, 'the window ended')
})
