// Comfort: share of occupied time in which the room temperature lies within the comfort
// band [comfort_min, comfort_max] (defaults 20-24 °C, the winter/summer range of EN 16798-1
// category II offices, rounded).
//
// Sampling: 15-minute means. A quarter hour resolves the start and end of occupancy
// (07:00, 18:00) and matches the usual trend-log interval of building automation; shorter
// dips are not a comfort complaint. A year is 35,040 buckets.
// Occupied time: the `occupancy` pin when mapped (a state > 0.5 held until its next sample;
// before its first sample the schedule applies), otherwise the `occupied_hours` schedule
// (default Monday-Friday 07:00-18:00) in the project's time zone.
import { AttributeError, isScheduled, parseSchedule } from '../attributes.ts'
import { zoneCalendar } from '../../../core/clock/zone.ts'
import { pins } from '../pins.ts'
import { holdAt, mean, round } from '../stats.ts'
import { fmt, tx } from '../text.ts'
import type { FunctionDefinition, Text } from '../types.ts'

const INTERVAL = 15 * 60_000_000
const BUCKET_HOURS = 0.25

export const comfort: FunctionDefinition = {
  alphanumeric_id: 'comfort',
  nameEN: 'Thermal comfort',
  nameDE: 'Thermische Behaglichkeit',
  components: { room: pins(['room_temp'], ['occupancy']) },
  async compute(ctx) {
    const lo = ctx.num('comfort_min', 20)
    const hi = ctx.num('comfort_max', 24)
    if (lo >= hi) throw new AttributeError('comfort_max', String(hi), `above comfort_min (${lo})`)
    const week = parseSchedule('occupied_hours', ctx.text('occupied_hours'))
    const temps = await ctx.mean('room_temp', INTERVAL)
    if (temps.length === 0) return { status: 'no_data', message: tx('The room temperature has no values in the range.', 'Die Raumtemperatur hat im Zeitraum keine Werte.') }
    const occ = ctx.mapped.has('occupancy') ? holdAt(await ctx.mean('occupancy', INTERVAL, { hold: true }), temps.map((p) => p.time)) : []
    const local = zoneCalendar(ctx.timeZone)
    const occupied: number[] = []
    temps.forEach((p, i) => {
      const o = occ[i]
      const lt = local.at(p.time)
      if (o !== undefined ? o > 0.5 : isScheduled(week, lt.weekday, lt.minute)) occupied.push(p.value)
    })
    if (occupied.length === 0) {
      return { status: 'insufficient_data', message: tx('No room temperature falls into occupied time.', 'Keine Raumtemperatur liegt in der Nutzungszeit.') }
    }
    const n = occupied.length
    const cold = occupied.filter((v) => v < lo).length
    const warm = occupied.filter((v) => v > hi).length
    const share = (100 * (n - cold - warm)) / n
    const coldShare = (100 * cold) / n
    const warmShare = (100 * warm) / n
    const signal = share >= 90 ? 'green' : share >= 75 ? 'yellow' : 'red'
    const s = fmt(share)
    const band = tx(`${fmt(lo).en}-${fmt(hi).en} °C`, `${fmt(lo).de}-${fmt(hi).de} °C`)
    const recommendation: Text[] = []
    if (coldShare >= 5) recommendation.push(tx('Too cold in occupied time: check heating setpoints, the heating curve and the start of heating before occupancy.', 'Zu kalt in der Nutzungszeit: Sollwerte, Heizkurve und Aufheizbeginn vor Nutzungsbeginn prüfen.'))
    if (warmShare >= 5) recommendation.push(tx('Too warm in occupied time: check cooling, solar shading and heating that runs too high.', 'Zu warm in der Nutzungszeit: Kühlung, Sonnenschutz und zu hoch laufende Heizung prüfen.'))
    return {
      signal_color: signal,
      kpi: [
        { name: tx('Comfort share of occupied time', 'Anteil der Nutzungszeit im Komfortbereich'), unit: '%', value: round(share, 1) },
        { name: tx('Too cold share', 'Anteil zu kalt'), unit: '%', value: round(coldShare, 1) },
        { name: tx('Too warm share', 'Anteil zu warm'), unit: '%', value: round(warmShare, 1) },
        { name: tx('Occupied hours evaluated', 'Ausgewertete Nutzungsstunden'), unit: 'h', value: round(n * BUCKET_HOURS, 2) },
        { name: tx('Mean temperature in occupied time', 'Mittlere Temperatur in der Nutzungszeit'), unit: '°C', value: round(mean(occupied), 2) },
      ],
      interpretation: tx(
        `The room was within ${band.en} for ${s.en}% of the occupied time (${fmt(coldShare).en}% too cold, ${fmt(warmShare).en}% too warm).`,
        `Der Raum lag ${s.de} % der Nutzungszeit im Bereich ${band.de} (${fmt(coldShare).de} % zu kalt, ${fmt(warmShare).de} % zu warm).`),
      recommendation,
      info: [tx(`15-minute means; occupied time from ${occ.length ? 'the occupancy pin' : 'the schedule'}.`, `15-Minuten-Mittelwerte; Nutzungszeit aus ${occ.length ? 'dem Belegungspin' : 'dem Zeitplan'}.`)],
    }
  },
}
