// Sensor health of every mapped pin of any component: gaps (hours without a value),
// frozen values (the same hourly mean for 24 hours or more), and outliers (hourly means
// outside the plausible range of the quantity, or further than 8 scaled MADs from the
// median). Pins written only on change (states, setpoints, occupancy) are checked for
// outliers only: silence is normal for them. Frozen values are looked for in measured
// temperatures, humidity and CO2, which never stand still for a day in a working building.
//
// Sampling: 1-hour means. Gaps are counted in whole hours (a sensor is expected to report
// at least hourly), and a raw spike shows as an outlying hourly mean when it is large
// enough; with min/max aggregates in the store (branch `rollups`) the outlier test can
// use bucket extremes instead.
import { COMPONENT_PINS, pins } from '../pins.ts'
import { median, round } from '../stats.ts'
import { fmt, tx } from '../text.ts'
import type { FunctionDefinition, PinSpec, SignalColor, Text } from '../types.ts'

const HOUR = 3_600_000_000
const FROZEN_HOURS = 24
const MAD_LIMIT = 8

const ON_CHANGE = /(_state|_setpoint)$|^occupancy$/
const MEASURED = /(temp|humidity|co2)$/

/** Plausible range of a quantity by pin name (the first pattern that matches). */
const PLAUSIBLE: Array<[RegExp, number, number]> = [
  [/^outdoor_temp$/, -50, 60],
  [/^room_temp|return_air_temp/, 0, 50],
  [/temp/, -50, 150],
  [/humidity$/, 0, 100],
  [/^co2$/, 200, 10_000],
  [/valve|modulation|_state$|^occupancy$/, 0, 100],
]

function anyPin(component: string): PinSpec {
  const all = [...COMPONENT_PINS[component]]
  return pins([], all, [{ need: 'any', groups: all.map((p) => [p]) }])
}

interface PinHealth { pin: string; coverage?: number; gaps: number; longestGap: number; frozen: number; outliers: number }

export const sensorHealth: FunctionDefinition = {
  alphanumeric_id: 'sensor_health',
  nameEN: 'Sensor health',
  nameDE: 'Sensorzustand',
  components: Object.fromEntries(Object.keys(COMPONENT_PINS).map((c) => [c, anyPin(c)])),
  async compute(ctx) {
    const checked = COMPONENT_PINS[ctx.component].filter((p) => ctx.mapped.has(p))
    const k0 = Math.floor(ctx.start / HOUR)
    const expected = Math.ceil(ctx.end / HOUR) - k0
    const health: PinHealth[] = []
    let any = false
    for (const pin of checked) {
      const hourly = await ctx.mean(pin, HOUR)
      if (hourly.length > 0) any = true
      health.push(check(pin, hourly, k0, expected))
    }
    if (!any) return { status: 'no_data', message: tx('No mapped pin has values in the range.', 'Kein zugeordneter Pin hat im Zeitraum Werte.') }
    const covered = health.filter((h) => h.coverage !== undefined)
    const meanCoverage = covered.length ? covered.reduce((a, h) => a + h.coverage!, 0) / covered.length : NaN
    const minCoverage = Math.min(...covered.map((h) => h.coverage!))
    const sum = (f: (h: PinHealth) => number) => health.reduce((a, h) => a + f(h), 0)
    const gaps = sum((h) => h.gaps); const frozen = sum((h) => h.frozen); const outliers = sum((h) => h.outliers)
    const longest = Math.max(0, ...health.map((h) => h.longestGap))
    const signal: SignalColor = minCoverage < 80 || frozen > 0 ? 'red' : minCoverage < 98 || outliers > 0 || gaps > 0 ? 'yellow' : 'green'
    const bad = health.filter((h) => h.gaps || h.frozen || h.outliers || (h.coverage ?? 100) < 98).map((h) => h.pin)
    const recommendation: Text[] = []
    if (frozen > 0) recommendation.push(tx('Check frozen sensors on site (wiring, transmitter, the gateway repeating a last value).', 'Eingefrorene Sensoren vor Ort prüfen (Verdrahtung, Messumformer, Gateway, das einen letzten Wert wiederholt).'))
    if (gaps > 0) recommendation.push(tx('Close data gaps: check the edge device\'s connection and the trend log interval (at least hourly).', 'Datenlücken schließen: Verbindung des Edge-Geräts und das Aufzeichnungsintervall (mindestens stündlich) prüfen.'))
    if (outliers > 0) recommendation.push(tx('Check outlying values: sensor range and scaling, unit mix-ups, faulty readings.', 'Ausreißer prüfen: Messbereich und Skalierung des Sensors, verwechselte Einheiten, Fehlmessungen.'))
    return {
      signal_color: signal,
      kpi: [
        { name: tx('Pins checked', 'Geprüfte Pins'), unit: '', value: health.length },
        { name: tx('Mean data coverage', 'Mittlere Datenabdeckung'), unit: '%', value: round(meanCoverage, 1) },
        { name: tx('Gaps', 'Lücken'), unit: '', value: gaps },
        { name: tx('Longest gap', 'Längste Lücke'), unit: 'h', value: longest },
        { name: tx('Frozen hours', 'Eingefrorene Stunden'), unit: 'h', value: frozen },
        { name: tx('Outlier hours', 'Ausreißerstunden'), unit: 'h', value: outliers },
      ],
      interpretation: bad.length === 0
        ? tx(`All ${health.length} pins reported completely and plausibly.`, `Alle ${health.length} Pins lieferten vollständig und plausibel.`)
        : tx(`${bad.length} of ${health.length} pins show problems: ${bad.join(', ')}.`, `${bad.length} von ${health.length} Pins zeigen Auffälligkeiten: ${bad.join(', ')}.`),
      recommendation,
      info: health.map((h) => tx(
        `${h.pin}: coverage ${h.coverage === undefined ? 'not checked (written on change)' : `${fmt(h.coverage).en}%`}, ${h.gaps} gaps (longest ${h.longestGap} h), ${h.frozen} frozen hours, ${h.outliers} outlier hours.`,
        `${h.pin}: Abdeckung ${h.coverage === undefined ? 'nicht geprüft (bei Änderung geschrieben)' : `${fmt(h.coverage).de} %`}, ${h.gaps} Lücken (längste ${h.longestGap} h), ${h.frozen} eingefrorene Stunden, ${h.outliers} Ausreißerstunden.`)),
    }
  },
}

function check(pin: string, hourly: readonly { time: number; value: number }[], k0: number, expected: number): PinHealth {
  const h: PinHealth = { pin, gaps: 0, longestGap: 0, frozen: 0, outliers: 0 }
  if (!ON_CHANGE.test(pin)) {
    h.coverage = (100 * hourly.length) / expected
    // Missing hours between the present ones, and before the first / after the last.
    let prev = k0 - 1
    for (const k of [...hourly.map((p) => Math.floor(p.time / HOUR)), k0 + expected]) {
      const gap = k - prev - 1
      if (gap > 0) { h.gaps++; h.longestGap = Math.max(h.longestGap, gap) }
      prev = k
    }
  }
  if (MEASURED.test(pin) && !ON_CHANGE.test(pin)) {
    let run = 1
    for (let i = 1; i <= hourly.length; i++) {
      const same = i < hourly.length && hourly[i].value === hourly[i - 1].value && hourly[i].time - hourly[i - 1].time === HOUR
      if (same) { run++; continue }
      if (run >= FROZEN_HOURS) h.frozen += run
      run = 1
    }
  }
  const range = PLAUSIBLE.find(([re]) => re.test(pin))
  const values = hourly.map((p) => p.value)
  const med = median(values)
  const mad = 1.4826 * median(values.map((v) => Math.abs(v - med)))
  for (const v of values) {
    const implausible = range !== undefined && (v < range[1] || v > range[2])
    const spike = !ON_CHANGE.test(pin) && mad > 0 && Math.abs(v - med) > MAD_LIMIT * mad
    if (implausible || spike) h.outliers++
  }
  return h
}
