// Issue 9, items 5 and 6 (HTTP): tokens and passwords, and throttling of failed logins. The
// attacker holds a stolen bearer token, guesses passwords from one or many addresses, or
// comes from another company.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import * as passwords from '../../catalog/passwords.ts'
import type { LoginThrottleOptions } from '../../catalog/login-throttle.ts'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import type { TimeseriesStore } from '../../engine/store/port.ts'
import { addUser, basic, platform, type Login } from '../helpers/platform.ts'

/** An app with a small login throttle on a clock the test moves, counting password checks. */
async function throttled(t: Test, limits: LoginThrottleOptions) {
  let checks = 0
  const { buildApp } = await t.mockImport<typeof import('../../api/app.ts')>('../../api/app.ts', {
    '../../catalog/passwords.ts': { ...passwords, verifyPassword: (pw: string, stored: string) => { checks++; return passwords.verifyPassword(pw, stored) } },
  })
  const clock = { now: 1_000_000 }
  const catalog = Catalog.open(':memory:', adminEndpoints)
  const admin = { email: 'admin@acme.test', password: 'admin-pass-1' }
  await catalog.createCompanyWithAdmin('Acme', admin)
  const beta = { email: 'boss@beta.test', password: 'beta-password' }
  await catalog.createCompanyWithAdmin('Beta', beta)
  // These routes read no time series: no store (its worker thread does not run under mockImport).
  const store = {} as TimeseriesStore
  const app: FastifyInstance = await buildApp({ catalog, store, logger: false, loginThrottle: { windowMs: 60_000, now: () => clock.now, ...limits } })
  t.teardown(async () => { await app.close(); catalog.close() })
  const call = async (who: Login | string, url = '/v2/user', from = '10.0.0.1', method: 'GET' | 'POST' | 'PUT' = 'GET', body?: object) => {
    const authorization = typeof who === 'string' ? `Bearer ${who}` : basic(who)
    const res = await app.inject({ method, url, headers: { authorization }, remoteAddress: from, ...(body ? { payload: body } : {}) })
    return { status: res.statusCode, body: res.json(), retryAfter: res.headers['retry-after'] }
  }
  return { app, catalog, clock, admin, beta, call, checks: () => checks }
}

const blocked = (seconds: number) => ({
  status: 429, retryAfter: String(seconds),
  body: { success: false, error: `Too many failed logins from this address or for this account: try again in ${seconds} s`, operation: '' },
})

t.test('a stolen bearer token cannot mint tokens, nor change email or password', async (t) => {
  const p = await platform(t)
  const victim = await addUser(p, 'victim')
  const issued = await p.call(victim, 'POST', '/v2/auth/token', { expires_in: 600 })
  t.equal(issued.status, 201, 'a password mints a token')
  const stolen = issued.body.resource.access_token
  const tokens = () => p.catalog.tokens.countOfUser(victim.id)

  t.same(await p.call(stolen, 'POST', '/v2/auth/token', { expires_in: 30 * 86400 }), {
    status: 403,
    body: { success: false, error: 'A bearer token cannot create tokens: call POST /v2/auth/token with HTTP Basic credentials (email and password)', operation: 'create' },
  })
  t.equal(await tokens(), 1, 'no token was made')

  t.same(await p.call(stolen, 'PUT', '/v2/user', { email: 'attacker@evil.test' }), {
    status: 400, body: { success: false, error: 'Changing the email needs current_password: the current password of this account', operation: 'update' },
  })
  t.same(await p.call(stolen, 'PUT', '/v2/user', { password: 'attacker-pass' }), {
    status: 400, body: { success: false, error: 'Changing the password needs current_password: the current password of this account', operation: 'update' },
  })
  t.same(await p.call(stolen, 'PUT', '/v2/user', { email: 'attacker@evil.test', password: 'attacker-pass', current_password: 'a-guess-123' }), {
    status: 403, body: { success: false, error: 'current_password is wrong: changing the email or password needs the current password of this account', operation: 'update' },
  })
  t.same(await p.call(victim, 'PUT', '/v2/user', { password: 'attacker-pass' }), {
    status: 400, body: { success: false, error: 'Changing the password needs current_password: the current password of this account', operation: 'update' },
  }, 'a Basic caller supplies it too')
  t.equal((await p.call(victim, 'GET', '/v2/user')).body.user.email, victim.email, 'nothing changed')
  t.equal((await p.call(stolen, 'PUT', '/v2/user', { firstName: 'Renamed', email: victim.email })).status, 200, 'names (and an unchanged email) need no password')

  // The owner changes the password: every token ends, the one of this very call included.
  const second = (await p.call(victim, 'POST', '/v2/auth/token')).body.resource.access_token
  const changed = await p.call(second, 'PUT', '/v2/user', { password: 'new-victim-pass', current_password: victim.password })
  t.equal(changed.status, 200)
  t.equal(await tokens(), 0, 'all tokens of the user are revoked')
  t.equal((await p.call(stolen, 'GET', '/v2/user')).status, 401)
  t.equal((await p.call(second, 'GET', '/v2/user')).status, 401)
  t.equal((await p.call({ ...victim, password: 'new-victim-pass' }, 'GET', '/v2/user')).status, 200)
})

t.test('issue 29: a bearer token alone cannot delete its user; Basic credentials can', async (t) => {
  const p = await platform(t)
  const victim = await addUser(p, 'deletable')
  const stolen = (await p.call(victim, 'POST', '/v2/auth/token')).body.resource.access_token
  t.same(await p.call(stolen, 'DELETE', '/v2/user'), {
    status: 403,
    body: { success: false, error: 'A bearer token cannot delete its user: call DELETE /v2/user with HTTP Basic credentials (email and password)', operation: 'delete' },
  })
  t.equal((await p.call(victim, 'GET', '/v2/user')).status, 200, 'the user is still there')
  t.equal((await p.call(stolen, 'GET', '/v2/user')).status, 200, 'and so is the token')
  t.equal((await p.call(victim, 'DELETE', '/v2/user')).status, 200, 'with its password the owner deletes it')
  t.equal((await p.call(victim, 'GET', '/v2/user')).status, 401)
})

t.test('after an email change the old email is refused at once, however recently it was cached', async (t) => {
  const p = await platform(t)
  const u = await addUser(p, 'mover')
  for (let i = 0; i < 3; i++) t.equal((await p.call(u, 'GET', '/v2/user')).status, 200, 'cached')
  const moved = await p.call(u, 'PUT', '/v2/user', { email: 'moved@acme.test', current_password: u.password })
  t.equal(moved.status, 200)
  t.same(await p.call(u, 'GET', '/v2/user'), { status: 401, body: { success: false, error: 'Invalid email or password', operation: '' } })
  const now = { email: 'moved@acme.test', password: u.password }
  t.equal((await p.call(now, 'GET', '/v2/user')).body.user.id, u.id, 'the new email works')
  // Someone else takes the old email: the old login (old email + old password) is still refused.
  const taker = await p.call(p.admin, 'POST', '/v2/company/user', { company_id: p.admin.companyId, firstName: 'T', lastName: 'T', email: u.email, password: 'taker-password' })
  t.equal(taker.status, 201)
  t.equal((await p.call(u, 'GET', '/v2/user')).status, 401)
  t.equal((await p.call({ email: u.email, password: 'taker-password' }, 'GET', '/v2/user')).body.user.id, taker.body.resource.id)
  // And back: the cache entry of the first login never revives.
  t.equal((await p.call(now, 'PUT', '/v2/user', { email: 'mover2@acme.test', current_password: u.password })).status, 200)
  t.equal((await p.call(now, 'GET', '/v2/user')).status, 401)
})

t.test('guessing one account: blocked after the limit, 429 with Retry-After, no password checked', async (t) => {
  const w = await throttled(t, { maxPerAccount: 3, maxPerAddress: 100 })
  for (let i = 0; i < 3; i++) t.equal((await w.call({ ...w.admin, password: `guess-${i}-xx` }, '/v2/user', `10.0.0.${i}`)).status, 401)
  const before = w.checks()
  t.equal(before, 3, 'each failure cost one password check')
  t.same(await w.call(w.admin, '/v2/user', '10.0.9.9'), blocked(60), 'even the right password, from a new address')
  t.same(await w.call({ ...w.admin, password: 'guess-4-xx' }), blocked(60))
  t.equal(w.checks(), before, 'no password was checked while blocked')
  t.equal((await w.call(w.beta)).status, 200, 'other accounts are not blocked')
  w.clock.now += 45_000
  t.same(await w.call(w.admin), blocked(15), 'Retry-After counts down')
  w.clock.now += 15_000
  t.equal((await w.call(w.admin)).status, 200, 'the window ended')
})

t.test('guessing from one address across accounts: blocked per address', async (t) => {
  const w = await throttled(t, { maxPerAccount: 100, maxPerAddress: 4 })
  for (let i = 0; i < 4; i++) t.equal((await w.call({ email: `ghost${i}@acme.test`, password: 'whatever-1' }, '/v2/user', '192.0.2.7')).status, 401)
  t.same(await w.call(w.beta, '/v2/user', '192.0.2.7'), blocked(60), 'any account from that address')
  t.equal((await w.call(w.beta, '/v2/user', '192.0.2.8')).status, 200, 'another address is not blocked')
  const malformed = await w.app.inject({ method: 'GET', url: '/v2/user', headers: { authorization: 'Basic ' + Buffer.from('nocolon').toString('base64') }, remoteAddress: '192.0.2.9' })
  t.equal(malformed.statusCode, 401, 'malformed credentials count against the address too')
})

t.test('forged bearer tokens count per address', async (t) => {
  const w = await throttled(t, { maxPerAccount: 100, maxPerAddress: 3 })
  const token = (await w.call(w.admin, '/v2/auth/token', '10.1.1.1', 'POST')).body.resource.access_token
  for (let i = 0; i < 3; i++) t.equal((await w.call(`lt_forged${i}`, '/v2/user', '198.51.100.1')).status, 401)
  t.same(await w.call(`lt_forged9`, '/v2/user', '198.51.100.1'), blocked(60))
  t.same(await w.call(token, '/v2/user', '198.51.100.1'), blocked(60), 'no token is looked up from that address')
  t.equal((await w.call(token, '/v2/user', '198.51.100.2')).status, 200, 'nor blocked elsewhere')
  t.equal((await w.call(w.admin, '/v2/user', '198.51.100.1')).status, 200, 'password logins keep their own count (a stale token must not lock out a shared address)')
})

t.test('a wrong current_password counts as a failed login', async (t) => {
  const w = await throttled(t, { maxPerAccount: 2, maxPerAddress: 100 })
  const token = (await w.call(w.admin, '/v2/auth/token', '10.0.0.1', 'POST')).body.resource.access_token
  // The token is stolen and used from the thief's own address.
  for (let i = 0; i < 2; i++) t.equal((await w.call(token, '/v2/user', '10.6.6.6', 'PUT', { password: 'new-password-1', current_password: `guess-${i}-x` })).status, 403)
  t.same(await w.call(token, '/v2/user', '10.6.6.6', 'PUT', { password: 'new-password-1', current_password: w.admin.password }),
    { ...blocked(60), body: { ...blocked(60).body, operation: 'update' } }, 'the right one is not even checked now')
  t.same(await w.call(w.admin, '/v2/user', '10.0.0.2'), blocked(60), 'and the account is blocked for Basic logins from new addresses')
  t.equal((await w.call(w.admin, '/v2/user', '10.0.0.1')).status, 200, 'not from the address its owner logged in from')
})

t.test('issue 29: 1,000 concurrent guesses get only the limit of password checks, and never lock the owner out of her known address', async (t) => {
  const w = await throttled(t, {})
  t.equal((await w.call(w.admin, '/v2/user', '10.0.0.1')).status, 200, "the owner's usual address becomes known")
  const before = w.checks()
  // Company Beta's admin races 1,000 wrong logins for Acme's admin: 500 from one address, 500
  // from 500 addresses, all sent before any is answered.
  const statuses = await Promise.all(Array.from({ length: 1000 }, (_, i) =>
    w.call({ ...w.admin, password: `guess-${i}-xx` }, '/v2/user', i < 500 ? '203.0.113.1' : `198.51.${Math.floor(i / 250)}.${i % 250}`).then((r) => r.status)))
  const checked = w.checks() - before
  t.ok(checked <= 5 + 10, `${checked} password checks (limits: 5 per address and account, 10 for the account from unknown addresses)`)
  t.equal(statuses.filter((s) => s === 401).length, checked, 'every checked guess is a 401')
  t.equal(statuses.filter((s) => s === 429).length, 1000 - checked, 'the others 429, unchecked')
  t.same(await w.call(w.admin, '/v2/user', '10.0.0.77'), blocked(60), 'a new address of the account is refused while guessing goes on')
  t.equal((await w.call(w.admin, '/v2/user', '10.0.0.1')).status, 200, 'the right password from her known address still logs in')
  t.equal((await w.call(w.admin, '/v2/user', '10.0.0.1')).status, 200, 'and again (cached)')
  t.equal((await w.call(w.beta, '/v2/user', '10.0.0.2')).status, 200, 'other accounts are untouched')
})

t.test('another company guesses: the same refusals, the same cost for unknown and known emails', async (t) => {
  const w = await throttled(t, { maxPerAccount: 1000, maxPerAddress: 1000, maxPerPair: 1000 })
  // The Beta admin knows its own login and guesses at Acme's: 401 and 404 only.
  t.equal((await w.call({ ...w.admin, password: 'beta-password' })).status, 401)
  // CPU time of this process (the platform runs in it; the hash runs on its thread pool), not
  // wall time: on a loaded machine the OS preempts the process between a login's steps, which
  // wall time counts and CPU time does not. Known and unknown alternate so drift hits both.
  const cpuMs = async (who: Login) => {
    const before = process.cpuUsage()
    t.equal((await w.call(who)).status, 401)
    const used = process.cpuUsage(before)
    return (used.user + used.system) / 1000
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  await cpuMs({ email: 'warm@up.test', password: 'x-x-x-x-x' })
  const knownRuns: number[] = []
  const unknownRuns: number[] = []
  for (let i = 0; i < 7; i++) {
    knownRuns.push(await cpuMs({ ...w.admin, password: 'wrong-pass-1' }))
    unknownRuns.push(await cpuMs({ email: 'nobody@acme.test', password: 'wrong-pass-1' }))
  }
  const known = median(knownRuns)
  const unknown = median(unknownRuns)
  t.ok(unknown > known / 3 && unknown < known * 3, `median CPU ${unknown.toFixed(1)} ms (unknown) vs ${known.toFixed(1)} ms (known): the same work`)
  t.ok(known > 2, 'a wrong password costs a full hash, cached login or not')
})
