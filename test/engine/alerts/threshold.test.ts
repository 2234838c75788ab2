// The threshold operator (engine/alerts/operators/threshold.ts): every level on both sides,
// resets, hysteresis, minimum durations, de-escalation, out-of-order input and a checkpoint.
import t from 'tap'
import { from, lastValueFrom, toArray } from 'rxjs'
import { parseThresholds } from '../../../engine/alerts/config.ts'
import { evaluateThresholds, ThresholdEvaluator, type AlertTransitionOut } from '../../../engine/alerts/operators/threshold.ts'

const S = 1_000_000
const run = async (thresholds: object, values: number[], step = S) => {
  const out = await lastValueFrom(from(values.map((value, i) => ({ time: i * step, value }))).pipe(evaluateThresholds(parseThresholds(thresholds)), toArray()))
  return out.map((x: AlertTransitionOut) => `${x.kind} ${x.level}${x.previous_level ? ` from ${x.previous_level}` : ''} @${x.time / step} v=${x.value}`)
}

t.test('each level raises and resets on the upper side, without hysteresis', async (t) => {
  t.same(await run({ info: { upper: 10 }, warn: { upper: 20 }, crit: { upper: 30 } }, [5, 10, 9, 20, 19.9, 30, 35, 29, 0]), [
    'raise info @1 v=10', 'reset info @2 v=9', 'raise warn @3 v=20', 'raise info from warn @4 v=19.9',
    'raise crit from info @5 v=30', 'raise warn from crit @7 v=29', 'reset warn @8 v=0',
  ])
})

t.test('lower thresholds and both sides of one level', async (t) => {
  t.same(await run({ warn: { lower: 5, upper: 50 }, crit: { lower: 0 } }, [10, 5, 6, -1, 3, 51, 49]), [
    'raise warn @1 v=5', 'reset warn @2 v=6', 'raise crit @3 v=-1', 'raise warn from crit @4 v=3', 'reset warn @6 v=49',
  ], 'a jump from the lower to the upper side keeps warn (both sides are warn)')
})

t.test('hysteresis: a level holds until its reset threshold is passed', async (t) => {
  t.same(await run({ warn: { upper: 25, upper_reset: 22 }, info: { lower: 5, lower_reset: 8 } }, [20, 25, 24, 22, 21.9, 26, 4, 5, 7.9, 8.1]), [
    'raise warn @1 v=25', 'reset warn @4 v=21.9', 'raise warn @5 v=26', 'raise info from warn @6 v=4', 'reset info @9 v=8.1',
  ])
})

t.test('minimum duration: the raise condition must hold without interruption', async (t) => {
  const cfg = { warn: { upper: 20, duration_seconds: 3 }, crit: { upper: 30, duration_seconds: 2 } }
  t.same(await run(cfg, [21, 22, 10, 21, 22, 23, 24, 10]), ['raise warn @6 v=24', 'reset warn @7 v=10'], 'interrupted at 2; from 3 it lasts 3 s at 6')
  t.same(await run(cfg, [31, 31, 31, 31]), ['raise crit @2 v=31'], 'a crit run also counts for warn, but crit is more severe once due')
  t.same(await run({ warn: { upper: 20, duration_seconds: 1 }, crit: { upper: 30, duration_seconds: 10 } }, [31, 31, 31, 5]), ['raise warn @1 v=31', 'reset warn @3 v=5'], 'warn first while crit waits')
  t.same(await run({ warn: { upper: 20, duration_seconds: 60 } }, [25, 25, 25], 30 * S), ['raise warn @2 v=25'], 'durations in event time')
})

t.test('an older observation than the last one is skipped; a checkpoint continues', async (t) => {
  const e = new ThresholdEvaluator(parseThresholds({ warn: { upper: 10, upper_reset: 8 } }))
  t.match(e.step({ time: 10, value: 11 }), { kind: 'raise', level: 'warn' })
  t.equal(e.step({ time: 5, value: 0 }), undefined, 'late observation ignored')
  t.equal(e.step({ time: 10, value: 0 }), undefined, 'same time again ignored')
  const resumed = new ThresholdEvaluator(parseThresholds({ warn: { upper: 10, upper_reset: 8 } }), JSON.parse(JSON.stringify(e.state)))
  t.equal(resumed.step({ time: 11, value: 9 }), undefined, 'still raised after a restart: no second raise')
  t.match(resumed.step({ time: 12, value: 7 }), { kind: 'reset', level: 'warn', value: 7 })
})

t.test('configuration refusals', async (t) => {
  t.throws(() => parseThresholds({}), /at least one level/)
  t.throws(() => parseThresholds({ warn: {} }), /upper and\/or a lower/)
  t.throws(() => parseThresholds({ warn: { lower: 1, lower_reset: 0 } }), /lower_reset must be at or above lower/)
  t.throws(() => parseThresholds({ warn: { lower: 10, upper: 5 } }), /must stay below the upper side/)
  t.throws(() => parseThresholds({ warn: { upper: 1, duration_seconds: -1 } }), /duration_seconds/)
  t.throws(() => parseThresholds({ warn: { upper: '1' } }), /finite number/)
})
