import t from 'tap'
import { LoginThrottle } from '../../catalog/login-throttle.ts'

t.test('blocks an account after its limit within the window, and frees it when the window ends', async (t) => {
  let now = 1_000_000
  const th = new LoginThrottle({ maxPerAccount: 3, maxPerAddress: 100, windowMs: 60_000, now: () => now })
  for (let i = 0; i < 3; i++) {
    t.equal(th.retryAfterMs('10.0.0.1', 'a@x'), 0)
    th.failed('10.0.0.1', 'a@x')
  }
  t.equal(th.retryAfterMs('10.0.0.2', 'A@X'), 60_000, 'account key is case-insensitive and independent of the address')
  t.equal(th.retryAfterMs('10.0.0.1', 'b@x'), 0, 'other accounts from the same address are not blocked yet')
  now += 59_000
  t.equal(th.retryAfterMs(undefined, 'a@x'), 1_000)
  now += 1_000
  t.equal(th.retryAfterMs(undefined, 'a@x'), 0, 'window over')
})

t.test('blocks an address that guesses at many accounts', async (t) => {
  const now = 5
  const th = new LoginThrottle({ maxPerAccount: 100, maxPerAddress: 4, windowMs: 1000, now: () => now })
  for (let i = 0; i < 4; i++) th.failed('10.0.0.9', `user${i}`)
  t.equal(th.retryAfterMs('10.0.0.9', 'fresh'), 1000)
  t.equal(th.retryAfterMs('10.0.0.8', 'fresh'), 0)
})

t.test('success clears the account counter but not the address counter', async (t) => {
  const th = new LoginThrottle({ maxPerAccount: 2, maxPerAddress: 2, windowMs: 1000, now: () => 0 })
  th.failed('ip1', 'u')
  th.succeeded('u')
  th.failed('ip2', 'u')
  t.equal(th.retryAfterMs(undefined, 'u'), 0, 'one failure since the success')
  th.failed('ip1', 'v')
  t.equal(th.retryAfterMs('ip1', undefined), 1000, 'ip1 has two failures')
})
