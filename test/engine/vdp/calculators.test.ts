import t from 'tap'
import { compileFormula } from '../../../formulas/index.ts'
import {
  absoluteHumidity, CounterCalculator, enhancementFactor, formulaCalculator, gradient, humidityCalculator, saturationVapourPressure, STANDARD_PRESSURE_PA,
} from '../../../engine/vdp/calculators.ts'
import type { AbsoluteHumidityParameters, Obs } from '../../../engine/vdp/types.ts'

const S = 1_000_000
const o = (s: number, value: number): Obs => ({ time: s * S, value })

t.test('formula: evaluated per vector, null and division by zero give nothing', async (t) => {
  const f = formulaCalculator(compileFormula('P1 / P2', ['P1', 'P2']))
  t.equal(f.calculate([6, 3]), 2)
  t.equal(f.calculate([6, 0]), null, 'division by zero')
  t.equal(f.calculate([6, null]), null)
  t.equal(formulaCalculator(compileFormula('if(P1 > 0, P1, null)', ['P1'])).calculate([-1]), null)
})

t.test('counter: accumulates results from default_init_value; null adds nothing', async (t) => {
  const f = compileFormula('a - b', ['a', 'b'])
  const c = new CounterCalculator(f, 100)
  t.equal(c.total, 100)
  t.equal(c.calculate([5, 2]), 103)
  t.equal(c.calculate([1, 0]), 104)
  t.equal(c.calculate([1, null]), null)
  t.equal(c.total, 104, 'a null result leaves the total')
  t.equal(c.calculate([-4, 0]), 100)
})

t.test('counter: a restart continues from the stored total', async (t) => {
  const f = compileFormula('v', ['v'])
  const before = new CounterCalculator(f, 0)
  before.calculate([2])
  before.calculate([3])
  const after = new CounterCalculator(f, before.total)
  t.equal(after.calculate([4]), 9)
})

t.test('counter: an overflowing total is refused', async (t) => {
  const c = new CounterCalculator(compileFormula('v', ['v']), Number.MAX_VALUE)
  t.equal(c.calculate([Number.MAX_VALUE]), null)
  t.equal(c.total, Number.MAX_VALUE)
})

t.test('gradient: (x1 − x2) / (y1 − y2) in seconds × factorization, over the last two', async (t) => {
  t.equal(gradient([o(0, 10), o(10, 40)], 1), 3)
  t.equal(gradient([o(0, 999), o(100, 10), o(110, 40)], 1), 3, 'only the last two count')
  t.equal(gradient([o(0, 40), o(10, 10)], 1), -3)
  // a meter in kWh: 0.5 kWh in 15 min is 2 kW
  t.equal(gradient([o(0, 1000), o(900, 1000.5)], 3600), 2)
  t.equal(gradient([{ time: 0, value: 0 }, { time: 1, value: 1 }], 1), 1_000_000, 'µs apart')
})

t.test('gradient: no output before two observations or for equal timestamps', async (t) => {
  t.equal(gradient([], 1), null)
  t.equal(gradient([o(1, 1)], 1), null)
  t.equal(gradient([o(1, 1), o(1, 2)], 1), null)
})

t.test('absolute humidity: 20 °C, 50 %, 101325 Pa (hand-computed, WMO formulas)', async (t) => {
  // e_w = 611.2 · exp(17.62·20 / 263.12) = 2332.596 Pa
  // f   = 1.0016 + 3.15e-6·1013.25 − 0.074/1013.25 = 1.0047187
  // e   = 0.5 · f · e_w = 1171.80 Pa
  // AH  = 1171.80 · 18.01528 / (8.314462618 · 293.15) = 8.6611 g/m³
  t.ok(Math.abs(saturationVapourPressure(20) - 2332.596) < 0.001)
  t.ok(Math.abs(enhancementFactor(101_325) - 1.0047187) < 1e-7)
  const ah = absoluteHumidity(0.5, 20, STANDARD_PRESSURE_PA)!
  t.ok(Math.abs(ah - 8.6611) < 0.0001, `${ah} ≈ 8.66 g/m³`)
})

t.test('absolute humidity: more reference points', async (t) => {
  // Saturated air at 0 °C holds about 4.85 g/m³, at 30 °C about 30.4 g/m³ (psychrometric tables)
  t.ok(Math.abs(absoluteHumidity(1, 0, STANDARD_PRESSURE_PA)! - 4.86) < 0.05)
  t.ok(Math.abs(absoluteHumidity(1, 30, STANDARD_PRESSURE_PA)! - 30.4) < 0.3)
  t.equal(absoluteHumidity(0, 20, STANDARD_PRESSURE_PA), 0)
  const low = absoluteHumidity(0.5, 20, 80_000)!
  t.ok(low < absoluteHumidity(0.5, 20, STANDARD_PRESSURE_PA)! && low > 8.6, 'lower pressure: slightly less (enhancement factor)')
})

t.test('absolute humidity: impossible inputs give nothing', async (t) => {
  t.equal(absoluteHumidity(-0.1, 20, STANDARD_PRESSURE_PA), null)
  t.equal(absoluteHumidity(0.5, -273.15, STANDARD_PRESSURE_PA), null)
  t.equal(absoluteHumidity(0.5, 20, 0), null)
  t.equal(absoluteHumidity(NaN, 20, STANDARD_PRESSURE_PA), null)
})

t.test('humidity calculator: units and the default pressure', async (t) => {
  const ref = absoluteHumidity(0.5, 20, STANDARD_PRESSURE_PA)!
  const calc = (u: Partial<AbsoluteHumidityParameters>) =>
    humidityCalculator({ relative_humidity_unit: 'count', temperature_unit: 'celsius', pressure_unit: 'Pa', ...u })
  const near = (v: number | null, msg: string) => t.ok(v !== null && Math.abs(v - ref) < 1e-9, msg)
  near(calc({}).calculate([0.5, 20, null]), 'no pressure: 101325 Pa')
  near(calc({}).calculate([0.5, 20]), 'no pressure pin at all')
  near(calc({}).calculate([0.5, 20, 101_325]), 'Pa')
  near(calc({ relative_humidity_unit: 'percent' }).calculate([50, 20, null]), 'percent')
  near(calc({ temperature_unit: 'kelvin' }).calculate([0.5, 293.15, null]), 'kelvin')
  near(calc({ temperature_unit: 'fahrenheit' }).calculate([0.5, 68, null]), 'fahrenheit')
  near(calc({ pressure_unit: 'hPa' }).calculate([0.5, 20, 1013.25]), 'hPa')
  near(calc({ pressure_unit: 'mbar' }).calculate([0.5, 20, 1013.25]), 'mbar')
  near(calc({ pressure_unit: 'kPa' }).calculate([0.5, 20, 101.325]), 'kPa')
  near(calc({ pressure_unit: 'bar' }).calculate([0.5, 20, 1.01325]), 'bar')
  t.equal(calc({}).calculate([null, 20, null]), null)
})
