// Throughput alerts by timers on a simulated clock (issue 13 item 2): the evaluator alone,
// then through the runtime with events stored.
import t from 'tap'
import { parseThroughput } from '../../../engine/alerts/config.ts'
import { ThroughputEvaluator, type ThroughputTransition } from '../../../engine/alerts/operators/throughput.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { MICROS_PER_MS as MS, nowMs } from '../../../core/clock/clock.ts'
import { addAlert, alertSetup, seedProject } from './setup.ts'

const evaluator = (cfg: object, clock: VirtualClock, opts: { seedTimes?: number[]; level?: 'warn' | null } = {}) => {
  const out: ThroughputTransition[] = []
  const e = new ThroughputEvaluator(parseThroughput(cfg), clock, (x) => out.push(x), { startedAt: nowMs(clock), ...opts })
  e.start()
  return { e, out }
}

t.test('no data for 15 minutes raises at the 15th minute, data resets, silence raises again', async (t) => {
  const clock = new VirtualClock()
  const t0 = nowMs(clock)
  const { e, out } = evaluator({ window_seconds: 900 }, clock)
  clock.advance(899_999 * MS)
  t.same(out, [], 'not before the window has passed (grace period from the start)')
  clock.advance(MS)
  t.same(out, [{ kind: 'raise', level: 'warn', previous_level: null, value: 0, time: (t0 + 900_000) * 1000 }])
  clock.advance(60_000 * MS)
  t.equal(out.length, 1, 'raised once, not again on every tick')
  t.equal(clock.pending, 0, 'no timer while raised: data resets it')
  e.observe()
  t.match(out[1], { kind: 'reset', level: 'warn', value: 1, time: (t0 + 960_000) * 1000 })
  for (let i = 0; i < 100; i++) { clock.advance(1000 * MS); e.observe() }
  t.equal(clock.pending, 1, 'one timer per alert, not one per observation')
  clock.advance(899_000 * MS)
  t.equal(out.length, 2, 'the last observation is still within the window')
  clock.advance(1000 * MS)
  t.match(out[2], { kind: 'raise', level: 'warn' })
  e.stop()
  t.equal(clock.pending, 0)
})

t.test('fewer than min_count within the window', async (t) => {
  const clock = new VirtualClock()
  const { e, out } = evaluator({ window_seconds: 60, min_count: 3, level: 'crit' }, clock)
  e.observe(); clock.advance(10_000 * MS); e.observe(); clock.advance(10_000 * MS); e.observe()
  clock.advance(39_999 * MS)
  t.same(out, [], 'three within the last 60 s')
  clock.advance(MS)
  t.match(out, [{ kind: 'raise', level: 'crit', value: 2 }], 'the first left the window: two remain')
  e.observe()
  t.match(out[1], { kind: 'reset', level: 'crit', value: 3 })
  t.throws(() => parseThroughput({ window_seconds: 0 }), /window_seconds/)
  t.throws(() => parseThroughput({ window_seconds: 5, min_count: 0 }), /min_count/)
  t.throws(() => parseThroughput({ window_seconds: 5, level: 'fatal' }), /level/)
})

t.test('restarted: raised stays raised without a second raise; data seen meanwhile resets at once', async (t) => {
  const clock = new VirtualClock()
  const raised = evaluator({ window_seconds: 60 }, clock, { level: 'warn', seedTimes: [nowMs(clock) - 120_000] })
  clock.advance(120_000 * MS)
  t.same(raised.out, [], 'no duplicate raise')
  const back = evaluator({ window_seconds: 60 }, clock, { level: 'warn', seedTimes: [nowMs(clock) - 5_000] })
  t.match(back.out, [{ kind: 'reset' }], 'the missed reset is found on start')
})

t.test('through the runtime: timers on the simulated clock, events stored per alert', async (t) => {
  const s = await alertSetup(t)
  const { projectId, series } = await seedProject(s.catalog)
  const a = await addAlert(s.catalog, projectId, series, 'throughput', { throughput: parseThroughput({ window_seconds: 300 }) })
  await s.alerts.start(a)
  s.clock.advance(300_000 * MS)
  await s.alerts.settled()
  t.match(await s.catalog.alerts.events(a.id, { limit: 10 }), [{ kind: 'raise', level: 'warn', value: 0 }])
  await s.store.append([{ series, time: nowMs(s.clock) * 1000, value: 1 }])
  await s.alerts.settled()
  t.same((await s.catalog.alerts.events(a.id, { limit: 10 })).map((e) => e.kind), ['reset', 'raise'])
  t.same(JSON.parse((await s.catalog.alerts.state(a.id))!).level, null)
})
