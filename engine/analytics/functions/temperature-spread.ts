// Temperature spread: flow minus return temperature of a heating circuit or at a heat
// meter while the system is in operation. A small spread means too much flow for the
// heat delivered (pumps too high, missing hydraulic balancing, bypasses; bad for
// condensing boilers and heat pumps' return temperatures); a negative one usually means
// swapped or misplaced sensors. In operation: pump on (`pump_state` > 0.5), flow through
// the meter (`volume_flow` > 0) or heat delivered (`heat_power` > 0), each when mapped;
// without any of these, every hour counts.
//
// Sampling: 1-hour means of each pin, paired by hour; the spread is a slow quantity and
// hourly means smooth valve and burner cycling.
import { pins } from '../pins.ts'
import { holdAt, join, mean, round } from '../stats.ts'
import { fmt, tx } from '../text.ts'
import type { FunctionDefinition, SignalColor, Text } from '../types.ts'

const INTERVAL = 3_600_000_000
const LOW = 5

export const temperatureSpread: FunctionDefinition = {
  alphanumeric_id: 'temperature_spread',
  nameEN: 'Temperature spread',
  nameDE: 'Temperaturspreizung',
  components: {
    heating_circuit: pins(['flow_temp', 'return_temp'], ['pump_state']),
    heat_meter: pins(['flow_temp', 'return_temp'], ['volume_flow', 'heat_power']),
  },
  async compute(ctx) {
    const [flow, ret] = await Promise.all([ctx.mean('flow_temp', INTERVAL), ctx.mean('return_temp', INTERVAL)])
    let pairs = join(flow, ret)
    if (pairs.length === 0) return { status: 'no_data', message: tx('Flow and return temperature have no common hours in the range.', 'Vor- und Rücklauftemperatur haben im Zeitraum keine gemeinsamen Stunden.') }
    const gates: Array<[string, number]> = [['pump_state', 0.5], ['volume_flow', 0], ['heat_power', 0]]
    for (const [pin, above] of gates) {
      if (!ctx.mapped.has(pin)) continue
      const held = holdAt(await ctx.mean(pin, INTERVAL, { hold: true }), pairs.map(([t]) => t))
      pairs = pairs.filter((_, i) => (held[i] ?? Infinity) > above) // no gate value yet: counted, as in heating_curve
    }
    if (pairs.length === 0) return { status: 'insufficient_data', message: tx('The system was not in operation in the range.', 'Die Anlage war im Zeitraum nicht in Betrieb.') }
    const spreads = pairs.map(([, f, r]) => f - r)
    const avg = mean(spreads)
    const lowShare = (100 * spreads.filter((s) => s < LOW).length) / spreads.length
    const negShare = (100 * spreads.filter((s) => s < 0).length) / spreads.length
    let signal: SignalColor = avg < 3 ? 'red' : avg < LOW || avg > 30 ? 'yellow' : 'green'
    if (negShare > 5 && signal === 'green') signal = 'yellow'
    const recommendation: Text[] = []
    if (avg < LOW) recommendation.push(tx('Reduce the flow: lower the pump head or speed, balance the circuit hydraulically and look for open bypasses or overflow valves.', 'Volumenstrom senken: Pumpenförderhöhe oder Drehzahl reduzieren, hydraulischen Abgleich durchführen und offene Bypässe oder Überströmventile suchen.'))
    if (avg > 30) recommendation.push(tx('The spread is very large: check whether the flow rate is too low for the load (pump, closed valves, dirt filters).', 'Die Spreizung ist sehr groß: Prüfen, ob der Volumenstrom für die Last zu gering ist (Pumpe, geschlossene Ventile, Schmutzfänger).'))
    if (negShare > 5) recommendation.push(tx('The return is often warmer than the flow: check whether the sensors are swapped or mounted at the wrong place.', 'Der Rücklauf ist oft wärmer als der Vorlauf: Prüfen, ob die Fühler vertauscht oder falsch montiert sind.'))
    return {
      signal_color: signal,
      kpi: [
        { name: tx('Mean temperature spread', 'Mittlere Temperaturspreizung'), unit: 'K', value: round(avg, 2) },
        { name: tx(`Share of hours with spread below ${LOW} K`, `Anteil der Stunden mit Spreizung unter ${LOW} K`), unit: '%', value: round(lowShare, 1) },
        { name: tx('Share of hours with negative spread', 'Anteil der Stunden mit negativer Spreizung'), unit: '%', value: round(negShare, 1) },
        { name: tx('Operating hours evaluated', 'Ausgewertete Betriebsstunden'), unit: 'h', value: spreads.length },
      ],
      interpretation: tx(
        `Over ${spreads.length} operating hours flow and return differed by ${fmt(avg).en} K on average; ${fmt(lowShare).en}% of the hours were below ${LOW} K.`,
        `In ${spreads.length} Betriebsstunden lagen Vor- und Rücklauf im Mittel ${fmt(avg).de} K auseinander; ${fmt(lowShare).de} % der Stunden lagen unter ${LOW} K.`),
      recommendation,
      info: [tx('Hourly means, paired by hour.', 'Stundenmittelwerte, stundenweise gepaart.')],
    }
  },
}
