// Heating curve check: is the flow temperature of a heating circuit weather-compensated
// along its design curve? The design curve is the straight line from (heating_limit_temp,
// 20 °C) to (design_outdoor_temp, design_flow_temp) (defaults 15 °C, -12 °C, 70 °C); hours
// with an outdoor temperature at or above the heating limit, or with the pump off (when
// `pump_state` is mapped), are left out. The measured curve is the least-squares line of
// flow on outdoor temperature; the mean deviation from the design curve is the parallel
// shift the curve would need.
//
// Sampling: 1-hour means. Flow temperature follows the outdoor temperature with the
// building's time constant (hours); hourly means smooth burner and valve cycling, and
// 8,760 points a year are plenty for a regression.
import { AttributeError } from '../attributes.ts'
import { pins } from '../pins.ts'
import { extent, holdAt, join, linearFit, mean, round } from '../stats.ts'
import { fmt, tx } from '../text.ts'
import type { FunctionDefinition, SignalColor, Text } from '../types.ts'

const INTERVAL = 3_600_000_000
const ROOM = 20
const MIN_HOURS = 24

export const heatingCurve: FunctionDefinition = {
  alphanumeric_id: 'heating_curve',
  nameEN: 'Heating curve check',
  nameDE: 'Heizkurvenprüfung',
  components: { heating_circuit: pins(['flow_temp', 'outdoor_temp'], ['pump_state']) },
  async compute(ctx) {
    const designOut = ctx.num('design_outdoor_temp', -12)
    const designFlow = ctx.num('design_flow_temp', 70)
    const limit = ctx.num('heating_limit_temp', 15)
    if (designOut >= limit) throw new AttributeError('design_outdoor_temp', String(designOut), `below heating_limit_temp (${limit})`)
    if (designFlow <= ROOM) throw new AttributeError('design_flow_temp', String(designFlow), `above ${ROOM} °C`)
    const designSlope = -(designFlow - ROOM) / (limit - designOut)
    const design = (out: number) => ROOM + designSlope * (out - limit)

    const [flow, outdoor] = await Promise.all([ctx.mean('flow_temp', INTERVAL), ctx.mean('outdoor_temp', INTERVAL)])
    if (flow.length === 0 || outdoor.length === 0) {
      return { status: 'no_data', message: tx('Flow or outdoor temperature has no values in the range.', 'Vorlauf- oder Außentemperatur hat im Zeitraum keine Werte.') }
    }
    let pairs = join(flow, outdoor).filter(([, , o]) => o < limit)
    if (ctx.mapped.has('pump_state')) {
      const pump = holdAt(await ctx.mean('pump_state', INTERVAL, { hold: true }), pairs.map(([t]) => t))
      pairs = pairs.filter((_, i) => (pump[i] ?? 1) > 0.5)
    }
    if (pairs.length < MIN_HOURS) {
      return {
        status: 'insufficient_data',
        message: tx(`Only ${pairs.length} hours with heating demand (outdoor below ${limit} °C${ctx.mapped.has('pump_state') ? ', pump on' : ''}); at least ${MIN_HOURS} are needed.`,
          `Nur ${pairs.length} Stunden mit Heizbedarf (außen unter ${fmt(limit).de} °C${ctx.mapped.has('pump_state') ? ', Pumpe ein' : ''}); mindestens ${MIN_HOURS} sind nötig.`),
      }
    }
    const outs = pairs.map(([, , o]) => o)
    const flows = pairs.map(([, f]) => f)
    const deviation = mean(pairs.map(([, f, o]) => f - design(o)))
    const fit = linearFit(outs, flows)
    const [lo, hi] = extent(outs)
    const spread = hi - lo
    // With less than 5 K of outdoor range the slope says little; judge the shift alone.
    const uncompensated = spread >= 5 && fit !== undefined && Math.abs(fit.slope) < 0.25 * Math.abs(designSlope)
    let signal: SignalColor = Math.abs(deviation) <= 3 ? 'green' : Math.abs(deviation) <= 8 ? 'yellow' : 'red'
    if (uncompensated && signal === 'green') signal = 'yellow'
    const dev = fmt(deviation)
    const recommendation: Text[] = []
    if (deviation > 3) recommendation.push(tx(`Lower the heating curve by about ${dev.en} K (parallel shift) and watch room comfort.`, `Heizkurve um etwa ${dev.de} K absenken (Parallelverschiebung) und die Raumbehaglichkeit beobachten.`))
    if (deviation < -3) recommendation.push(tx(`The flow runs ${fmt(-deviation).en} K below the design curve: if rooms are comfortable, update the design values; if not, raise the curve.`, `Der Vorlauf liegt ${fmt(-deviation).de} K unter der Auslegungskurve: Bei behaglichen Räumen die Auslegungswerte anpassen, sonst die Kurve anheben.`))
    if (uncompensated) recommendation.push(tx('The flow temperature hardly follows the outdoor temperature: check the outdoor sensor and enable weather compensation.', 'Die Vorlauftemperatur folgt der Außentemperatur kaum: Außenfühler prüfen und witterungsgeführte Regelung aktivieren.'))
    return {
      signal_color: signal,
      kpi: [
        { name: tx('Mean deviation from design curve', 'Mittlere Abweichung von der Auslegungskurve'), unit: 'K', value: round(deviation, 2) },
        { name: tx('Measured curve slope', 'Gemessene Steigung der Heizkurve'), unit: 'K/K', value: fit ? round(fit.slope, 3) : null },
        { name: tx('Design curve slope', 'Steigung der Auslegungskurve'), unit: 'K/K', value: round(designSlope, 3) },
        { name: tx('Flow temperature at design outdoor temperature (fitted)', 'Vorlauftemperatur bei Auslegungs-Außentemperatur (angepasst)'), unit: '°C', value: fit ? round(fit.intercept + fit.slope * designOut, 1) : null },
        { name: tx('Coefficient of determination R²', 'Bestimmtheitsmaß R²'), unit: '', value: fit ? round(fit.r2, 3) : null },
        { name: tx('Hours evaluated', 'Ausgewertete Stunden'), unit: 'h', value: pairs.length },
      ],
      interpretation: tx(
        `In ${pairs.length} hours with heating demand the flow temperature was on average ${dev.en} K ${deviation >= 0 ? 'above' : 'below'} the design curve${uncompensated ? ' and barely followed the outdoor temperature' : ''}.`,
        `In ${pairs.length} Stunden mit Heizbedarf lag die Vorlauftemperatur im Mittel ${fmt(Math.abs(deviation)).de} K ${deviation >= 0 ? 'über' : 'unter'} der Auslegungskurve${uncompensated ? ' und folgte der Außentemperatur kaum' : ''}.`),
      recommendation,
      info: [tx(`Hourly means; design curve from (${limit} °C, ${ROOM} °C) to (${designOut} °C, ${designFlow} °C).`, `Stundenmittelwerte; Auslegungskurve von (${fmt(limit).de} °C, ${ROOM} °C) bis (${fmt(designOut).de} °C, ${fmt(designFlow).de} °C).`)],
    }
  },
}
