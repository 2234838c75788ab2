// Authentication: Basic with email and password, bearer tokens with expiry and revocation.
import t from 'tap'
import { Authenticator } from '../../api/authenticate.ts'
import { TooManyRequestsError } from '../../core/errors.ts'
import { LoginThrottle } from '../../catalog/login-throttle.ts'
import { addUser, basic, platform } from '../helpers/platform.ts'

t.test('Basic credentials', async (t) => {
  const p = await platform(t)
  t.equal((await p.call(p.admin, 'GET', '/v2/user')).status, 200)
  const wrong = await p.call({ ...p.admin, password: 'nope-nope' }, 'GET', '/v2/user')
  t.same(wrong, { status: 401, body: { success: false, error: 'Invalid email or password', operation: '' } })
  const unknown = await p.call({ email: 'ghost@acme.test', password: 'whatever1' }, 'GET', '/v2/user')
  t.equal(unknown.body.error, 'Invalid email or password', 'the same text: no account probing')
  const none = await p.app.inject({ method: 'GET', url: '/v2/company' })
  t.equal(none.statusCode, 401)
  t.equal(none.headers['www-authenticate'], 'Basic realm="lintel", charset="UTF-8"')
  const odd = await p.app.inject({ method: 'GET', url: '/v2/user', headers: { authorization: 'Digest abc' } })
  t.equal(odd.json().error, 'Unsupported Authorization scheme: use Basic or Bearer')
  const noColon = await p.app.inject({ method: 'GET', url: '/v2/user', headers: { authorization: 'Basic ' + Buffer.from('x').toString('base64') } })
  t.equal(noColon.json().error, 'Malformed Basic credentials')
})

t.test('a password change ends cached Basic logins and tokens at once', async (t) => {
  const p = await platform(t)
  const u = await addUser(p, 'changer')
  const token = (await p.call(u, 'POST', '/v2/auth/token')).body.resource.access_token
  t.equal((await p.call(u, 'GET', '/v2/user')).status, 200, 'now cached')
  t.equal((await p.call(u, 'PUT', '/v2/user', { password: 'brand-new-pass', current_password: u.password })).status, 200)
  t.equal((await p.call(u, 'GET', '/v2/user')).status, 401, 'the old password no longer works')
  t.equal((await p.call(token, 'GET', '/v2/user')).status, 401, 'tokens of the old password are revoked')
  t.equal((await p.call({ ...u, password: 'brand-new-pass' }, 'GET', '/v2/user')).status, 200)
})

t.test('the Basic cache spares the hash: repeated calls are fast', async (t) => {
  const p = await platform(t)
  const auth = new Authenticator(p.catalog)
  const header = basic(p.admin)
  let start = process.hrtime.bigint()
  await auth.authenticate(header)
  const first = Number(process.hrtime.bigint() - start) / 1e6
  start = process.hrtime.bigint()
  for (let i = 0; i < 100; i++) await auth.authenticate(header)
  const cachedEach = Number(process.hrtime.bigint() - start) / 1e6 / 100
  t.ok(cachedEach * 10 < first, `cached ${cachedEach.toFixed(3)} ms vs first ${first.toFixed(1)} ms`)
})

t.test('bearer tokens: issue, use, expiry bounds, revoke', async (t) => {
  const p = await platform(t)
  const issued = await p.call(p.admin, 'POST', '/v2/auth/token', { expires_in: 600 })
  t.equal(issued.status, 201)
  t.match(issued.body, { success: true, operation: 'create', resource: { token_type: 'Bearer', expires_in: 600, access_token: /^lt_/ } })
  const expiresAt = Date.parse(issued.body.resource.expires_at)
  t.ok(Math.abs(expiresAt - (Date.now() + 600_000)) < 5000)
  const token = issued.body.resource.access_token
  t.equal((await p.call(token, 'GET', '/v2/company')).status, 200)
  t.equal((await p.call('lt_forged', 'GET', '/v2/company')).body.error, 'Invalid or expired token')
  t.equal((await p.call(p.admin, 'POST', '/v2/auth/token', { expires_in: 10 })).status, 400, 'below the minimum')
  t.equal((await p.call(p.admin, 'POST', '/v2/auth/token', { expires_in: 31 * 86400 })).status, 400, 'above the maximum')
  t.equal((await p.call(p.admin, 'DELETE', '/v2/auth/token')).status, 400, 'revoking needs a bearer call')
  const revoked = await p.call(token, 'DELETE', '/v2/auth/token')
  t.same(revoked.body, { success: true, operation: 'delete', resource: { revoked: true } })
  t.equal((await p.call(token, 'GET', '/v2/company')).status, 401)
})

t.test('an expired token is refused', async (t) => {
  const p = await platform(t)
  const issued = await p.catalog.tokens.issue(p.admin.id, 0) // expires as it is issued
  t.equal((await p.call(issued.access_token, 'GET', '/v2/user')).status, 401)
})

t.test('throttled logins: the Authenticator refuses with TooManyRequestsError before checking the password', async (t) => {
  const p = await platform(t)
  let now = 0
  const auth = new Authenticator(p.catalog, { throttle: new LoginThrottle({ maxPerAccount: 1, maxPerAddress: 100, windowMs: 10_000, now: () => now }) })
  await t.rejects(auth.authenticate(basic({ ...p.admin, password: 'wrong-password' }), '10.0.0.1'), { message: 'Invalid email or password', status: 401 })
  const err = await auth.authenticate(basic(p.admin), '10.0.0.2').catch((e: unknown) => e)
  t.ok(err instanceof TooManyRequestsError)
  t.equal((err as TooManyRequestsError).retryAfterSeconds, 10)
  t.equal((err as TooManyRequestsError).status, 429)
  now = 9_001
  t.equal(((await auth.authenticate(basic(p.admin)).catch((e: unknown) => e)) as TooManyRequestsError).retryAfterSeconds, 1, 'rounded up, at least 1 s')
  now = 10_000
  t.equal((await auth.authenticate(basic(p.admin))).user.email, p.admin.email)
})
