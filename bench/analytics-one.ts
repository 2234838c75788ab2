// Benchmark of one analysis (engine/analytics/run.ts) over a year of 1-minute data on 5
// pins of a heating circuit (issue 12, target < 1 s), in the embedded SQLite store, without
// HTTP. Fills 5 series x 525,600 points (flow, return, flow setpoint, outdoor temperature,
// pump state cycling 20 min on / 10 min off), then times each function on them; the
// headline is sensor_health, which reads all 5 pins. NDJSON on stdout, progress on stderr.
//
//   npm run bench:analytics-one -- [--runs 5] [--keep]
//
// Each case: one warm-up run, then --runs timed runs; median, min and max reported.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { functionByAlphanumericId } from '../engine/analytics/functions/index.ts'
import { runAnalysis, type RunInput } from '../engine/analytics/run.ts'
import type { Observation } from '../engine/store/port.ts'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'
import { emit, median, progress } from './lib.ts'

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '5' }, keep: { type: 'boolean', default: false } } })
const RUNS = Math.max(3, Number(args.runs))

const MINUTE = 60_000_000
const YEAR_MINUTES = 525_600
const Y0 = Date.UTC(2023, 0, 1) * 1000
const Y1 = Y0 + YEAR_MINUTES * MINUTE
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d

/** Outdoor temperature: yearly and daily waves; flow on a heating curve; return 10 K below. */
function values(m: number): [number, number, number, number, number] {
  const outdoor = 8 - 10 * Math.cos((2 * Math.PI * m) / YEAR_MINUTES) + 4 * Math.sin((2 * Math.PI * m) / 1440)
  const setpoint = Math.max(25, 20 + 1.85 * (15 - outdoor))
  const flow = setpoint + Math.sin(m / 7)
  const pump = m % 30 < 20 ? 1 : 0
  return [flow, flow - 10 + (m % 11) / 10, setpoint, outdoor, pump]
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'lintel-bench-analytics-'))
  progress(`store in ${dir}`)
  const store = await openSqliteStore({ dir })
  try {
    const t0 = performance.now()
    const inflight = new Set<Promise<void>>()
    for (let m = 0; m < YEAR_MINUTES;) {
      const batch: Observation[] = []
      for (; m < YEAR_MINUTES && batch.length < 50_000; m++) {
        const v = values(m)
        for (let s = 0; s < 5; s++) batch.push({ series: s + 1, time: Y0 + m * MINUTE, value: v[s] })
      }
      const p: Promise<void> = store.append(batch).then(() => { inflight.delete(p) })
      inflight.add(p)
      if (inflight.size >= 4) await Promise.race(inflight)
      if (m % 100_000 < 10_000) progress(`fill: ${m.toLocaleString()} of ${YEAR_MINUTES.toLocaleString()} minutes`)
    }
    await Promise.all(inflight)
    const fillSeconds = (performance.now() - t0) / 1000
    emit({ bench: 'analytics-fill', rows: 5 * YEAR_MINUTES, seconds: round(fillSeconds), rowsPerSec: Math.round((5 * YEAR_MINUTES) / fillSeconds) })

    const circuit = new Map([['flow_temp', 1], ['return_temp', 2], ['flow_temp_setpoint', 3], ['outdoor_temp', 4], ['pump_state', 5]])
    const cases: Array<[string, string, Map<string, number>]> = [
      ['sensor_health', 'heating_circuit', circuit],
      ['heating_curve', 'heating_circuit', circuit],
      ['temperature_spread', 'heating_circuit', circuit],
      ['control_quality', 'heating_circuit', circuit],
      ['operating_cycles', 'boiler', new Map([['burner_state', 5]])],
      ['comfort', 'room', new Map([['room_temp', 2]])],
      ['energy_signature', 'heat_meter', new Map([['heat_power', 1], ['outdoor_temp', 4]])],
      ['simultaneous_heating_cooling', 'room', new Map([['heating_valve', 5], ['cooling_valve', 3]])],
    ]
    // Baseline: the store alone, for the reads sensor_health makes (5 pins, 1-hour means).
    const reads = async () => { for (let s = 1; s <= 5; s++) await store.sample(s, { start: Y0, end: Y1, interval: 3_600_000_000 }) }
    await reads()
    const base: number[] = []
    for (let i = 0; i < RUNS; i++) { const t = performance.now(); await reads(); base.push(performance.now() - t) }
    emit({ bench: 'analytics-one', function: '(store only: 5 pins, 1-hour means)', runs: RUNS, medianMs: round(median(base)), minMs: round(Math.min(...base)), maxMs: round(Math.max(...base)) })

    for (const [name, component, seriesOfPin] of cases) {
      const input: RunInput = { fn: functionByAlphanumericId(name)!, store, component, seriesOfPin, attributes: {}, start: Y0, end: Y1, timeZone: 'Europe/Berlin' }
      progress(`run: ${name}`)
      let result = await runAnalysis(input) // warm-up
      const ms: number[] = []
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now()
        result = await runAnalysis(input)
        ms.push(performance.now() - t)
      }
      emit({ bench: 'analytics-one', function: name, component, pins: seriesOfPin.size, rawPointsPerPin: YEAR_MINUTES, runs: RUNS, medianMs: round(median(ms)), minMs: round(Math.min(...ms)), maxMs: round(Math.max(...ms)), status: result.status, signal_color: result.signal_color })
    }
  } finally {
    await store.close()
    if (!args.keep) rmSync(dir, { recursive: true, force: true })
    else progress(`kept ${dir}`)
  }
}

await main()
