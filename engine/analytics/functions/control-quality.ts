// Control quality: how closely a controlled temperature follows its setpoint: bias (mean
// deviation), mean absolute deviation, RMS deviation and the share of time within a
// tolerance band (room 1 K, supply air 1.5 K, heating flow 3 K: what a tuned controller of
// that loop holds). When the unit's `fan_state` / `pump_state` is mapped, only time in
// operation counts. Setpoints are often written only on change, so they hold until their
// next sample.
//
// Sampling: 15-minute means. A deviation that lasts a quarter hour is one an occupant or
// the next loop feels; faster oscillation averages out here (it shows as cycling instead).
import { pins } from '../pins.ts'
import { holdAt, round } from '../stats.ts'
import { fmt, tx } from '../text.ts'
import type { FunctionDefinition, SignalColor, Text } from '../types.ts'

const INTERVAL = 15 * 60_000_000

/** Controlled value, its setpoint, the gate pin and the tolerance per component. */
const LOOPS: Record<string, { actual: string; setpoint: string; gate?: string; tolerance: number }> = {
  room: { actual: 'room_temp', setpoint: 'room_temp_setpoint', tolerance: 1 },
  air_handling_unit: { actual: 'supply_air_temp', setpoint: 'supply_air_temp_setpoint', gate: 'fan_state', tolerance: 1.5 },
  heating_circuit: { actual: 'flow_temp', setpoint: 'flow_temp_setpoint', gate: 'pump_state', tolerance: 3 },
}

export const controlQuality: FunctionDefinition = {
  alphanumeric_id: 'control_quality',
  nameEN: 'Control quality',
  nameDE: 'Regelgüte',
  components: Object.fromEntries(Object.entries(LOOPS).map(([c, l]) => [c, pins([l.actual, l.setpoint], l.gate ? [l.gate] : [])])),
  async compute(ctx) {
    const loop = LOOPS[ctx.component]
    const actual = await ctx.mean(loop.actual, INTERVAL)
    const times = actual.map((p) => p.time)
    const setpoint = holdAt(await ctx.mean(loop.setpoint, INTERVAL, { hold: true }), times)
    const gate = loop.gate && ctx.mapped.has(loop.gate) ? holdAt(await ctx.mean(loop.gate, INTERVAL, { hold: true }), times) : undefined
    const dev: number[] = []
    actual.forEach((p, i) => {
      const sp = setpoint[i]
      if (sp !== undefined && (gate === undefined || (gate[i] ?? 0) > 0.5)) dev.push(p.value - sp)
    })
    if (actual.length === 0) return { status: 'no_data', message: tx(`${loop.actual} has no values in the range.`, `${loop.actual} hat im Zeitraum keine Werte.`) }
    if (dev.length === 0) return { status: 'insufficient_data', message: tx(`No time in the range with both ${loop.actual} and ${loop.setpoint}${gate ? ' in operation' : ''}.`, `Keine Zeit im Zeitraum mit ${loop.actual} und ${loop.setpoint}${gate ? ' im Betrieb' : ''}.`) }
    const n = dev.length
    const bias = dev.reduce((a, b) => a + b, 0) / n
    const mad = dev.reduce((a, b) => a + Math.abs(b), 0) / n
    const rms = Math.sqrt(dev.reduce((a, b) => a + b * b, 0) / n)
    const within = (100 * dev.filter((d) => Math.abs(d) <= loop.tolerance).length) / n
    const signal: SignalColor = within >= 90 ? 'green' : within >= 70 ? 'yellow' : 'red'
    const tol = fmt(loop.tolerance)
    const recommendation: Text[] = []
    // One-sided (the bias is most of the deviation) or swinging around the setpoint.
    const oneSided = Math.abs(bias) >= 0.5 * mad
    if (signal !== 'green' && oneSided) recommendation.push(tx(`The value stays ${bias > 0 ? 'above' : 'below'} its setpoint: check whether the plant has the capacity (valve fully ${bias > 0 ? 'closed' : 'open'}?), the sensor position and the controller's integral action.`, `Der Wert bleibt ${bias > 0 ? 'über' : 'unter'} dem Sollwert: Leistungsreserve (Ventil ganz ${bias > 0 ? 'zu' : 'auf'}?), Fühlerposition und den I-Anteil des Reglers prüfen.`))
    if (signal !== 'green' && !oneSided) recommendation.push(tx('The value swings around its setpoint: retune the controller (gain, integral time) and check the actuator for hysteresis.', 'Der Wert schwingt um den Sollwert: Regler neu einstellen (Verstärkung, Nachstellzeit) und den Stellantrieb auf Hysterese prüfen.'))
    return {
      signal_color: signal,
      kpi: [
        { name: tx('Share of time within tolerance', 'Zeitanteil innerhalb der Toleranz'), unit: '%', value: round(within, 1) },
        { name: tx('Mean deviation (bias)', 'Mittlere Abweichung'), unit: 'K', value: round(bias, 2) },
        { name: tx('Mean absolute deviation', 'Mittlere absolute Abweichung'), unit: 'K', value: round(mad, 2) },
        { name: tx('RMS deviation', 'Effektivwert der Abweichung'), unit: 'K', value: round(rms, 2) },
        { name: tx('Hours evaluated', 'Ausgewertete Stunden'), unit: 'h', value: round(n / 4, 2) },
      ],
      interpretation: tx(
        `${loop.actual} stayed within ±${tol.en} K of its setpoint ${fmt(within).en}% of the time, ${fmt(Math.abs(bias), 2).en} K ${bias >= 0 ? 'above' : 'below'} it on average.`,
        `${loop.actual} lag ${fmt(within).de} % der Zeit innerhalb ±${tol.de} K um den Sollwert, im Mittel ${fmt(Math.abs(bias), 2).de} K ${bias >= 0 ? 'darüber' : 'darunter'}.`),
      recommendation,
      info: [tx(`15-minute means; tolerance ±${tol.en} K for ${ctx.component}.`, `15-Minuten-Mittelwerte; Toleranz ±${tol.de} K für ${ctx.component}.`)],
    }
  },
}
