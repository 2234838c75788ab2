// One endpoint registry: every route has a number, every number a route, and the list and
// the OpenAPI document are generated from them.
import t from 'tap'
import { endpoints, fastifyPath } from '../../api/registry.ts'
import { platform } from '../helpers/platform.ts'

t.test('every registry entry has a route and every authenticated route an entry', async (t) => {
  const p = await platform(t)
  const numbers = endpoints.map((e) => e.number)
  t.equal(new Set(numbers).size, numbers.length, 'numbers are unique')
  for (const e of endpoints) {
    t.ok(p.app.hasRoute({ method: e.method, url: fastifyPath(e.path) }), `${e.number} ${e.method} ${e.path}`)
  }
  const res = await p.call(p.admin, 'GET', '/v2/endpoints')
  t.same(res.body, endpoints)
  t.equal((await p.app.inject({ method: 'GET', url: '/v2/endpoints' })).statusCode, 401, 'the list is for authenticated users')
})

t.test('the OpenAPI document lists every endpoint with its number', async (t) => {
  const p = await platform(t)
  const res = await p.app.inject({ method: 'GET', url: '/v2/openapi.json' })
  t.equal(res.statusCode, 200)
  const doc = res.json()
  t.match(doc.openapi, /^3\./)
  for (const e of endpoints) {
    const op = doc.paths[e.path]?.[e.method.toLowerCase()]
    t.ok(op, `${e.method} ${e.path} documented`)
    t.equal(op?.operationId, `endpoint${e.number}`)
    t.match(op?.summary, new RegExp(`^${e.number} - `))
  }
  const createUser = doc.paths['/v2/company/user'].post
  t.ok(createUser.requestBody.content['application/json'].schema.properties.password, 'request schemas are included')
})
