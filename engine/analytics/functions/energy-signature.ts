// Energy signature: daily consumption against heating degree days (HDD = max(0,
// base_temp - daily mean outdoor temperature), base_temp default 15 °C), fitted by least
// squares: the slope is the weather-dependent consumption per degree day, the intercept
// the base load per day, R² how well the weather explains consumption. A low R² points at
// consumption the weather does not drive (controls, schedules, domestic hot water, faults).
// Days are calendar days of the project's time zone, whole days inside [start, end).
// Consumption: from the `energy` counter (kWh) as the difference of its readings at local
// midnights (the first observation within an hour after midnight; the closing midnight may
// be `end`), or from mean power (kW) over the day x 24 h.
//
// Sampling: hourly means of outdoor temperature and power, averaged per local day (a day
// with fewer than 18 hours of data is left out); one counter reading per midnight. Daily
// values are what the method is defined on; hours make local days exact in any zone.
import { zoneCalendar } from '../../../core/clock/zone.ts'
import { pins } from '../pins.ts'
import { linearFit, round } from '../stats.ts'
import { fmt, tx } from '../text.ts'
import type { FunctionDefinition, SignalColor } from '../types.ts'
import type { Point } from '../read.ts'

const HOUR = 3_600_000_000
const MIN_HOURS_A_DAY = 18
const MIN_DAYS = 7

const signature = (power: string) => pins(['outdoor_temp'], [], [{ need: 'consumption', groups: [['energy'], [power]] }])

export const energySignature: FunctionDefinition = {
  alphanumeric_id: 'energy_signature',
  nameEN: 'Energy signature',
  nameDE: 'Energiesignatur',
  components: { heat_meter: signature('heat_power'), electricity_meter: signature('electric_power') },
  async compute(ctx) {
    const base = ctx.num('base_temp', 15)
    const local = zoneCalendar(ctx.timeZone)
    // Whole local days in range: from the first midnight at or after start.
    let d0 = local.at(ctx.start).day
    if (local.midnight(d0) < ctx.start) d0++
    const midnights: number[] = []
    for (let d = d0; local.midnight(d) <= ctx.end; d++) midnights.push(local.midnight(d))
    const days = midnights.length - 1
    if (days < 1) return { status: 'insufficient_data', message: tx('The range holds no whole day.', 'Der Zeitraum enthält keinen ganzen Tag.') }

    const outdoor = dailyMeans(await ctx.mean('outdoor_temp', HOUR), midnights)
    const [pin] = ctx.chosen('consumption')
    let consumption: Array<number | undefined>
    if (pin === 'energy') {
      const readings = await ctx.firstAt('energy', midnights, HOUR)
      consumption = readings.slice(0, -1).map((r, i) => {
        const next = readings[i + 1]
        return r === undefined || next === undefined || next < r ? undefined : next - r // a counter reset leaves the day out
      })
    } else {
      consumption = dailyMeans(await ctx.mean(pin, HOUR), midnights).map((p) => (p === undefined ? undefined : p * 24))
    }
    const hdd: number[] = []; const use: number[] = []
    for (let i = 0; i < days; i++) {
      const o = outdoor[i]; const c = consumption[i]
      if (o !== undefined && c !== undefined) { hdd.push(Math.max(0, base - o)); use.push(c) }
    }
    if (use.length === 0) return { status: 'no_data', message: tx(`No day in the range has both ${pin} and outdoor temperature.`, `Kein Tag im Zeitraum hat sowohl ${pin} als auch Außentemperatur.`) }
    const fit = linearFit(hdd, use)
    if (use.length < MIN_DAYS || fit === undefined) {
      return { status: 'insufficient_data', message: tx(`${use.length} days with data and ${hdd.filter((h) => h > 0).length} with heating degrees; at least ${MIN_DAYS} days with differing degree days are needed.`, `${use.length} Tage mit Daten und ${hdd.filter((h) => h > 0).length} mit Heizgradtagen; mindestens ${MIN_DAYS} Tage mit unterschiedlichen Gradtagen sind nötig.`) }
    }
    const r2 = Number.isNaN(fit.r2) ? 0 : fit.r2
    const signal: SignalColor = r2 >= 0.7 ? 'green' : r2 >= 0.4 ? 'yellow' : 'red'
    const total = use.reduce((a, b) => a + b, 0)
    return {
      signal_color: signal,
      kpi: [
        { name: tx('Consumption per degree day (slope)', 'Verbrauch je Gradtag (Steigung)'), unit: 'kWh/Kd', value: round(fit.slope, 2) },
        { name: tx('Base load per day', 'Grundlast je Tag'), unit: 'kWh/d', value: round(fit.intercept, 2) },
        { name: tx('Coefficient of determination R²', 'Bestimmtheitsmaß R²'), unit: '', value: round(r2, 3) },
        { name: tx('Days evaluated', 'Ausgewertete Tage'), unit: 'd', value: use.length },
        { name: tx('Consumption', 'Verbrauch'), unit: 'kWh', value: round(total, 1) },
        { name: tx('Heating degree days', 'Heizgradtage'), unit: 'Kd', value: round(hdd.reduce((a, b) => a + b, 0), 1) },
      ],
      interpretation: tx(
        `Each degree day adds ${fmt(fit.slope).en} kWh on a base load of ${fmt(fit.intercept).en} kWh a day; the weather explains ${fmt(100 * r2, 0).en}% of the daily variation.`,
        `Jeder Gradtag erhöht den Verbrauch um ${fmt(fit.slope).de} kWh bei einer Grundlast von ${fmt(fit.intercept).de} kWh am Tag; die Witterung erklärt ${fmt(100 * r2, 0).de} % der täglichen Schwankung.`),
      recommendation: signal === 'green' ? [] : [tx('Consumption follows the weather poorly: look for days with unusual consumption, schedules that do not match use and heating outside the heating season.', 'Der Verbrauch folgt der Witterung schlecht: Tage mit auffälligem Verbrauch, unpassende Zeitprogramme und Heizen außerhalb der Heizperiode suchen.')],
      info: [tx(`Base temperature ${fmt(base).en} °C; consumption from ${pin}${pin === 'energy' ? ' readings at local midnight' : ' hourly means'}; ${use.length} of ${days} days usable.`, `Heizgrenztemperatur ${fmt(base).de} °C; Verbrauch aus ${pin}${pin === 'energy' ? '-Ständen um Mitternacht (Ortszeit)' : '-Stundenmittelwerten'}; ${use.length} von ${days} Tagen verwendbar.`)],
    }
  },
}

/** Mean of hourly means per local day [midnights[i], midnights[i+1]); undefined below MIN_HOURS_A_DAY hours. */
function dailyMeans(hourly: readonly Point[], midnights: readonly number[]): Array<number | undefined> {
  const out: Array<number | undefined> = []
  let j = 0
  for (let i = 0; i + 1 < midnights.length; i++) {
    while (j < hourly.length && hourly[j].time < midnights[i]) j++
    let sum = 0; let n = 0
    while (j < hourly.length && hourly[j].time < midnights[i + 1]) { sum += hourly[j].value; n++; j++ }
    out.push(n >= MIN_HOURS_A_DAY ? sum / n : undefined)
  }
  return out
}

