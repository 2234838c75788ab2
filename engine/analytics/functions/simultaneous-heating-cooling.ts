// Simultaneous heating and cooling: time in which the heating valve and the cooling valve
// of a room or an air handling unit are both open (above 5 % of their scale), energy
// spent twice. Valve positions in 0-1 are recognised (largest value <= 1) and read as
// fractions; otherwise as per cent. Positions hold until their next sample (valves are
// often logged on change).
//
// Sampling: 15-minute means: brief overlaps during a changeover of the sequence are
// normal; a quarter hour of both valves open is waste worth a look.
import { pins } from '../pins.ts'
import { extent, round, steps } from '../stats.ts'
import { fmt, tx } from '../text.ts'
import type { FunctionDefinition, SignalColor } from '../types.ts'

const INTERVAL = 15 * 60_000_000
const OPEN = 0.05
const HOUR = 3_600_000_000

export const simultaneousHeatingCooling: FunctionDefinition = {
  alphanumeric_id: 'simultaneous_heating_cooling',
  nameEN: 'Simultaneous heating and cooling',
  nameDE: 'Gleichzeitiges Heizen und Kühlen',
  components: {
    room: pins(['heating_valve', 'cooling_valve']),
    air_handling_unit: pins(['heating_valve', 'cooling_valve']),
  },
  async compute(ctx) {
    const [heat, cool] = await Promise.all([ctx.mean('heating_valve', INTERVAL, { hold: true }), ctx.mean('cooling_valve', INTERVAL, { hold: true })])
    if (heat.length === 0 || cool.length === 0) return { status: 'no_data', message: tx('A valve position has no values in the range.', 'Eine Ventilstellung hat im Zeitraum keine Werte.') }
    const scale = extent([...heat, ...cool].map((p) => p.value))[1] <= 1 ? 1 : 100
    let covered = 0; let both = 0; let overlap = 0
    for (const s of steps([heat, cool], ctx.end)) {
      const [h, c] = s.values
      if (h === undefined || c === undefined) continue
      covered += s.duration
      if (h > OPEN * scale && c > OPEN * scale) { both += s.duration; overlap += (Math.min(h, c) * 100 / scale) * s.duration }
    }
    if (covered === 0) return { status: 'insufficient_data', message: tx('The valve positions do not overlap in time.', 'Die Ventilstellungen überschneiden sich zeitlich nicht.') }
    const share = (100 * both) / covered
    const signal: SignalColor = share > 5 ? 'red' : share > 1 ? 'yellow' : 'green'
    return {
      signal_color: signal,
      kpi: [
        { name: tx('Hours of simultaneous heating and cooling', 'Stunden gleichzeitigen Heizens und Kühlens'), unit: 'h', value: round(both / HOUR, 2) },
        { name: tx('Share of time', 'Zeitanteil'), unit: '%', value: round(share, 1) },
        { name: tx('Mean overlap of the valves', 'Mittlere Überlappung der Ventile'), unit: '%', value: both > 0 ? round(overlap / both, 1) : 0 },
        { name: tx('Hours evaluated', 'Ausgewertete Stunden'), unit: 'h', value: round(covered / HOUR, 2) },
      ],
      interpretation: tx(
        `Heating and cooling valves were open at the same time for ${fmt(both / HOUR).en} h, ${fmt(share).en}% of the time evaluated.`,
        `Heiz- und Kühlventil waren ${fmt(both / HOUR).de} h gleichzeitig geöffnet, ${fmt(share).de} % der ausgewerteten Zeit.`),
      recommendation: signal === 'green' ? [] : [tx('Separate the heating and cooling sequences: add a dead band between the setpoints, check the sequence controller and valves that do not close.', 'Heiz- und Kühlsequenz trennen: Totzone zwischen den Sollwerten vorsehen, den Sequenzregler und nicht schließende Ventile prüfen.')],
      info: [tx(`15-minute means; open above ${OPEN * 100}% of the scale (${scale === 1 ? '0-1' : '0-100 %'}).`, `15-Minuten-Mittelwerte; offen über ${OPEN * 100} % des Bereichs (${scale === 1 ? '0-1' : '0-100 %'}).`)],
    }
  },
}
