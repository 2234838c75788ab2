// The login throttle's rules (catalog/login-throttle.ts, issue 29 item 1) on a clock the
// test moves: counted before the check, per pair / address / account, known addresses.
import t from 'tap'
import { LoginThrottle, type Admission } from '../../catalog/login-throttle.ts'

const wait = (a: Admission) => (a.admitted ? 0 : a.retryAfterMs)

t.test('an attempt counts before its check: a burst gets only the limit, however concurrent', async (t) => {
  const th = new LoginThrottle({ maxPerPair: 5, maxPerAddress: 100, maxPerAccount: 100, now: () => 0 })
  // 300 attempts begun before any of them is checked (as 300 concurrent CONNECTs are).
  const admitted = Array.from({ length: 300 }, () => th.begin('10.0.0.1', 'gw')).filter((a) => a.admitted)
  t.equal(admitted.length, 5, 'five admitted to a password check, 295 refused unchecked')
})

t.test('the pair backs off; the same account from another address and other accounts from this one are not refused', async (t) => {
  let now = 1_000_000
  const th = new LoginThrottle({ maxPerPair: 3, maxPerAddress: 100, maxPerAccount: 100, windowMs: 60_000, now: () => now })
  for (let i = 0; i < 3; i++) t.ok(th.begin('10.0.0.1', 'a@x').admitted)
  const refused = th.begin('10.0.0.1', 'a@x')
  t.same(refused, { admitted: false, retryAfterMs: 60_000, limit: 'pair' })
  t.ok(th.begin('10.0.0.2', 'a@x').admitted, 'the account is not locked for everyone')
  t.ok(th.begin('10.0.0.1', 'b@x').admitted, 'other accounts from the address')
  now += 59_000
  t.equal(wait(th.begin('10.0.0.1', 'a@x')), 1_000)
  now += 1_000
  t.ok(th.begin('10.0.0.1', 'a@x').admitted, 'window over')
})

t.test('many addresses guessing one account: unknown addresses refused, known ones still checked', async (t) => {
  const th = new LoginThrottle({ maxPerPair: 5, maxPerAddress: 100, maxPerAccount: 10, windowMs: 60_000, now: () => 0 })
  const device = th.begin('192.0.2.10', 'gw')
  if (!device.admitted) throw new Error('first login refused')
  device.attempt.succeeded() // the device's address is now known
  for (let i = 0; i < 10; i++) t.ok(th.begin(`198.51.100.${i}`, 'gw').admitted)
  t.same(th.begin('198.51.100.99', 'gw'), { admitted: false, retryAfterMs: 60_000, limit: 'account' }, 'an eleventh address is refused')
  const again = th.begin('192.0.2.10', 'gw')
  t.ok(again.admitted, 'the device from its known address is checked')
  if (again.admitted) again.attempt.succeeded()
  t.same(th.begin('198.51.100.98', 'gw'), { admitted: false, retryAfterMs: 60_000, limit: 'account' }, "the device's success does not reset the guessers' budget")
  t.notOk(th.isKnown('GW', '192.0.2.10'), 'accounts are compared exactly (MQTT usernames are case-sensitive)')
  t.ok(th.begin('198.51.100.97', 'GW').admitted, 'GW is another account than gw')
})

t.test('one address guessing many accounts is refused, except for accounts it is known to', async (t) => {
  const th = new LoginThrottle({ maxPerPair: 5, maxPerAddress: 4, maxPerAccount: 100, windowMs: 1000, now: () => 5 })
  const mine = th.begin('10.0.0.9', 'mine')
  if (mine.admitted) mine.attempt.succeeded()
  for (let i = 0; i < 4; i++) t.ok(th.begin('10.0.0.9', `user${i}`).admitted)
  t.same(th.begin('10.0.0.9', 'fresh'), { admitted: false, retryAfterMs: 1000, limit: 'address' })
  t.ok(th.begin('10.0.0.8', 'fresh').admitted, 'another address')
  t.ok(th.begin('10.0.0.9', 'mine').admitted, 'an account that logged in from this address before')
  t.ok(th.begin('10.0.0.9', undefined).admitted === false, 'nothing named: the address alone counts')
})

t.test('a success takes its own provisional failure back and clears its pair', async (t) => {
  const th = new LoginThrottle({ maxPerPair: 2, maxPerAddress: 2, maxPerAccount: 100, windowMs: 1000, now: () => 0 })
  t.ok(th.begin('ip1', 'u').admitted) // a wrong password: stays counted
  const ok = th.begin('ip1', 'u')
  if (!ok.admitted) throw new Error('refused')
  ok.attempt.succeeded()
  ok.attempt.succeeded() // twice changes nothing
  t.ok(th.begin('ip1', 'v').admitted, 'the address holds one failure: the success was taken back')
  t.equal(wait(th.begin('ip1', 'w')), 1000, 'two failures now: the address is refused for unknown accounts')
  t.ok(th.begin('ip1', 'u').admitted, 'u knows ip1')
})

t.test('known addresses are bounded per account and forgotten after knownMs', async (t) => {
  let now = 0
  const th = new LoginThrottle({ knownPerAccount: 2, knownMs: 10_000, now: () => now })
  for (const ip of ['a', 'b', 'c']) {
    const x = th.begin(ip, 'u')
    if (x.admitted) x.attempt.succeeded()
  }
  t.same(['a', 'b', 'c'].map((ip) => th.isKnown('u', ip)), [false, true, true], 'the least recently used is dropped')
  now = 10_000
  t.notOk(th.isKnown('u', 'c'), 'forgotten')
})

t.test('an address any account logged in from is known to the pre-login gate; a failure makes none known', async (t) => {
  let now = 0
  const th = new LoginThrottle({ knownMs: 10_000, now: () => now })
  const failed = th.begin('10.0.0.9', 'gw')
  t.ok(failed.admitted)
  t.notOk(th.isKnownAddress('10.0.0.9'), 'an attempt that never succeeded')
  const a = th.begin('10.0.0.1', 'gw')
  if (a.admitted) a.attempt.succeeded()
  t.ok(th.isKnownAddress('10.0.0.1'), 'after a success, whatever the account')
  now += 10_000
  t.notOk(th.isKnownAddress('10.0.0.1'), 'forgotten after knownMs')
})
