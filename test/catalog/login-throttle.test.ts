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

t.test('without an address or an account only what is named counts', async (t) => {
  const th = new LoginThrottle({ maxPerPair: 2, maxPerAddress: 2, maxPerAccount: 2, windowMs: 60_000, now: () => 0 })
  // No address (a login without a peer address): no address or pair budget is spent.
  t.same(['a', 'b', 'c'].map((u) => th.begin(undefined, u).admitted), [true, true, true], 'three accounts, no address: none refused')
  // No account (a bearer token, malformed credentials): the address alone counts.
  t.same(['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((ip) => th.begin(ip, undefined).admitted), [true, true, true], 'three addresses, no account: none refused')
  t.ok(th.begin(undefined, 'a').admitted)
  t.same(th.begin(undefined, 'a'), { admitted: false, retryAfterMs: 60_000, limit: 'account' }, 'the account counts without an address')
  t.ok(th.begin('10.0.0.1', undefined).admitted)
  t.same(th.begin('10.0.0.1', undefined), { admitted: false, retryAfterMs: 60_000, limit: 'address' }, 'the address counts without an account')
})

t.test('refused by two limits: the longer wait is told', async (t) => {
  let now = 0
  const th = new LoginThrottle({ maxPerPair: 2, maxPerAddress: 100, maxPerAccount: 3, windowMs: 60_000, now: () => now })
  t.ok(th.begin('10.0.0.5', 'gw').admitted) // the account's window starts at 0
  now = 10_000
  for (let i = 0; i < 2; i++) t.ok(th.begin('10.0.0.1', 'gw').admitted) // the pair's at 10 s
  t.same(th.begin('10.0.0.1', 'gw'), { admitted: false, retryAfterMs: 60_000, limit: 'pair' }, 'the pair (60 s left) over the account (50 s left)')
})

t.test('a success takes back only its own count: its pair is cleared, a later window is left alone', async (t) => {
  let now = 0
  const th = new LoginThrottle({ maxPerPair: 2, maxPerAddress: 100, maxPerAccount: 2, windowMs: 1000, now: () => now })
  t.ok(th.begin('ip1', 'u').admitted) // a failure of the pair
  const ok = th.begin('ip1', 'u')
  if (!ok.admitted) throw new Error('refused')
  ok.attempt.succeeded()
  t.same([th.begin('ip1', 'u').admitted, th.begin('ip1', 'u').admitted], [true, true], 'the pair was cleared, not just taken back by one')

  const late = th.begin('ip2', 'x')
  if (!late.admitted) throw new Error('refused')
  now = 1000 // the window of that attempt is over; a new one starts
  t.ok(th.begin('ip3', 'x').admitted)
  late.attempt.succeeded() // its count was in the old window: the new one keeps its failure
  t.ok(th.begin('ip4', 'x').admitted)
  t.same(th.begin('ip5', 'x'), { admitted: false, retryAfterMs: 1000, limit: 'account' }, "an old attempt's success does not lower the new window")
})

t.test('known addresses: remembered 30 days by default, forgotten at knownMs exactly', async (t) => {
  let now = 0
  const login = (th: LoginThrottle) => { const x = th.begin('a', 'u'); if (x.admitted) x.attempt.succeeded() }
  const byDefault = new LoginThrottle({ now: () => now })
  login(byDefault)
  now = 29 * 86_400_000
  t.ok(byDefault.isKnown('u', 'a'), 'still known after 29 days')
  now = 0
  const th = new LoginThrottle({ knownMs: 10_000, now: () => now })
  login(th)
  now = 9_999
  t.ok(th.isKnown('u', 'a'), 'known 1 ms before knownMs')
  now = 10_000
  t.notOk(th.isKnown('u', 'a'), 'forgotten at knownMs')
  t.notOk(th.isKnown('u', 'b'), 'an address never seen is not known')
})
