// Operating hours and cycling: running hours, starts and short cycles of a boiler burner,
// a heat pump or chiller compressor. On/off comes from the state pin (> 0.5 is on) or,
// as the alternative, from a power pin above 5 % of `rated_power` (of the largest power
// seen when no rated power is given). A start is an off-to-on change inside the range; a
// cycle is a start and its run up to the next off; a cycle shorter than
// `min_cycle_minutes` (default 10) is short. States hold until their next sample, so
// series written only on change count the same as periodic ones.
//
// Sampling: 3-minute means; a bucket is on when its mean is above the threshold (for a
// state, > 0.5 = more than half the bucket on). Run times are thus measured to ±3 minutes, fine against the
// 10-minute short-cycle limit; runs or pauses shorter than ~1.5 minutes can vanish into a
// bucket. Why not 1 minute: with 1-minute logging a 1-minute bucket is the raw row again
// (525,600 points a year into JS, ~4 s on the shared 2-core machine), while 3-minute
// buckets of 1-minute data hold 3 rows each, which the SQLite store answers with its dense
// plan (~175,000 buckets a year). Exact starts need a count of changes per bucket, which the
// store does not offer yet (see read.ts).
import { pins } from '../pins.ts'
import { extent, round } from '../stats.ts'
import { fmt, tx } from '../text.ts'
import type { FunctionDefinition, SignalColor, Text } from '../types.ts'

const INTERVAL = 3 * 60_000_000
const POWER_SHARE = 0.05

const state = (...groups: string[][]) => pins([], [], [{ need: 'state', groups }])

export const operatingCycles: FunctionDefinition = {
  alphanumeric_id: 'operating_cycles',
  nameEN: 'Operating hours and cycling',
  nameDE: 'Betriebsstunden und Taktung',
  components: {
    boiler: state(['burner_state'], ['fuel_power']),
    heat_pump: state(['compressor_state'], ['electric_power'], ['heat_power']),
    chiller: state(['compressor_state'], ['electric_power'], ['cooling_power']),
  },
  async compute(ctx) {
    const [pin] = ctx.chosen('state')
    const minCycle = ctx.num('min_cycle_minutes', 10) * 60_000_000
    const points = await ctx.mean(pin, INTERVAL, { hold: true })
    if (points.length === 0) return { status: 'no_data', message: tx(`${pin} has no values in the range.`, `${pin} hat im Zeitraum keine Werte.`) }
    const isState = pin.endsWith('_state')
    const rated = ctx.num('rated_power', 0)
    const threshold = isState ? 0.5 : POWER_SHARE * (rated > 0 ? rated : extent(points.map((p) => p.value))[1])
    let onTime = 0
    let starts = 0
    const runs: number[] = []
    let runStart: number | undefined
    let prev: boolean | undefined
    // One pass over the buckets; each state holds until the next bucket (the last to end).
    for (let i = 0; i < points.length; i++) {
      const time = points[i].time
      const on = points[i].value > threshold
      if (on) onTime += (i + 1 < points.length ? points[i + 1].time : ctx.end) - time
      if (on && prev === false) { starts++; runStart = time }
      if (!on && prev === true && runStart !== undefined) { runs.push(time - runStart); runStart = undefined }
      prev = on
    }
    const hours = onTime / 3_600_000_000
    const short = runs.filter((r) => r < minCycle).length
    const shortShare = runs.length ? (100 * short) / runs.length : 0
    const perHour = hours > 0 ? starts / hours : 0
    const meanRun = runs.length ? runs.reduce((a, b) => a + b, 0) / runs.length / 60_000_000 : NaN
    const signal: SignalColor = shortShare >= 30 || perHour > 3 ? 'red' : shortShare >= 10 || perHour > 1.5 ? 'yellow' : 'green'
    const recommendation: Text[] = []
    if (signal !== 'green') {
      recommendation.push(tx('Reduce cycling: check the sizing against the load, the minimum modulation, the switching hysteresis and minimum run/pause times, and hydraulic decoupling (buffer tank, flow rate).',
        'Taktung verringern: Dimensionierung gegenüber der Last, minimale Modulation, Schalthysterese und Mindestlauf-/Pausenzeiten sowie hydraulische Entkopplung (Pufferspeicher, Volumenstrom) prüfen.'))
    }
    return {
      signal_color: signal,
      kpi: [
        { name: tx('Operating hours', 'Betriebsstunden'), unit: 'h', value: round(hours, 2) },
        { name: tx('Starts', 'Starts'), unit: '', value: starts },
        { name: tx('Starts per operating hour', 'Starts je Betriebsstunde'), unit: '1/h', value: round(perHour, 2) },
        { name: tx('Mean run time per cycle', 'Mittlere Laufzeit je Takt'), unit: 'min', value: round(meanRun, 1) },
        { name: tx('Short cycles', 'Kurztakte'), unit: '', value: short },
        { name: tx('Short cycle share', 'Anteil Kurztakte'), unit: '%', value: round(shortShare, 1) },
      ],
      interpretation: tx(
        `${hours > 0 ? `${fmt(hours).en} operating hours with ${starts} starts (${fmt(perHour, 2).en} per hour); ${short} of ${runs.length} complete cycles were shorter than ${fmt(minCycle / 60_000_000, 0).en} minutes.` : 'The unit did not run in the range.'}`,
        `${hours > 0 ? `${fmt(hours).de} Betriebsstunden mit ${starts} Starts (${fmt(perHour, 2).de} je Stunde); ${short} von ${runs.length} vollständigen Takten waren kürzer als ${fmt(minCycle / 60_000_000, 0).de} Minuten.` : 'Die Anlage lief im Zeitraum nicht.'}`),
      recommendation,
      info: [tx(`On/off from ${pin}${isState ? ' (> 0.5 = on)' : ` above ${fmt(threshold, 2).en}`}, 3-minute means.`, `Ein/Aus aus ${pin}${isState ? ' (> 0,5 = ein)' : ` über ${fmt(threshold, 2).de}`}, 3-Minuten-Mittelwerte.`)],
    }
  },
}
