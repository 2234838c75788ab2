// Every function reads through the store's down-sampling (issue 12 item 3): sample() for
// bucket means, and raw read() only for single observations (limit 1: a counter reading at
// midnight, the state in force before the range). A store wrapper records the calls.
import t from 'tap'
import { FUNCTIONS } from '../../../engine/analytics/functions/index.ts'
import { runAnalysis } from '../../../engine/analytics/run.ts'
import type { TimeseriesStore } from '../../../engine/store/port.ts'
import { DAY, MIN, MON, tempStore, writeSeries } from './helpers.ts'

t.test('only sampled reads and single-row reads', async (t) => {
  const store = await tempStore(t)
  const end = MON + 8 * DAY
  for (let s = 1; s <= 7; s++) await writeSeries(store, s, MON, end, 10 * MIN, (x) => 20 + s + Math.sin((x - MON) / (3 * 3_600_000_000)))
  const calls: string[] = []
  const spy: TimeseriesStore = {
    ...store,
    append: (b) => store.append(b),
    sample: (s, q) => { calls.push(`sample ${(q.interval as number) / 60_000_000} min`); return store.sample(s, q) },
    read: (s, q) => { calls.push(`read limit ${q.limit}`); return store.read(s, q) },
    count: (...a) => store.count(...a),
  }
  for (const fn of FUNCTIONS) {
    for (const [component, spec] of Object.entries(fn.components).slice(0, 2)) {
      calls.length = 0
      const pinIds = [...spec.required, ...spec.optional, ...spec.alternatives.map((a) => a.groups[0][0])]
      const seriesOfPin = new Map([...new Set(pinIds)].map((p, i) => [p, (i % 7) + 1]))
      const r = await runAnalysis({ fn, store: spy, component, seriesOfPin, attributes: {}, start: MON + DAY, end })
      t.not(r.status, 'failed', `${fn.alphanumeric_id} on ${component}: ${r.en.info.join(' ')}`)
      t.ok(calls.some((c) => c.startsWith('sample')), `${fn.alphanumeric_id} on ${component} samples`)
      t.same(calls.filter((c) => c.startsWith('read') && c !== 'read limit 1'), [], `${fn.alphanumeric_id} on ${component}: raw reads only of one row`)
    }
  }
})
