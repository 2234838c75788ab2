// The function library: stable ids, both names, and pin specs that name real pins of the
// components they apply to (the fixed ids shared with data/components/).
import t from 'tap'
import { FUNCTIONS, describeFunction, functionByAlphanumericId, functionById, functionsFor } from '../../../engine/analytics/functions/index.ts'
import { COMPONENT_PINS } from '../../../engine/analytics/pins.ts'

t.test('ids, names, pins', async (t) => {
  t.same(FUNCTIONS.map((f) => [f.id, f.alphanumeric_id]), [
    [1, 'comfort'], [2, 'heating_curve'], [3, 'operating_cycles'], [4, 'temperature_spread'],
    [5, 'control_quality'], [6, 'simultaneous_heating_cooling'], [7, 'energy_signature'], [8, 'sensor_health'],
  ], 'ids are stable: append, never renumber')
  for (const f of FUNCTIONS) {
    t.match(f.alphanumeric_id, /^[a-z0-9_]+$/)
    t.ok(f.nameEN && f.nameDE && f.nameEN !== f.nameDE, `${f.alphanumeric_id} has both names`)
    for (const [component, spec] of Object.entries(f.components)) {
      const known = COMPONENT_PINS[component]
      t.ok(known, `${f.alphanumeric_id}: component ${component} exists`)
      const named = [...spec.required, ...spec.optional, ...spec.alternatives.flatMap((a) => a.groups.flat())]
      t.same(named.filter((p) => !known.includes(p)), [], `${f.alphanumeric_id} on ${component} names only its pins`)
    }
  }
  t.equal(functionById(3)?.alphanumeric_id, 'operating_cycles')
  t.equal(functionByAlphanumericId('comfort')?.id, 1)
  t.equal(functionById(99), undefined)
  t.same(functionsFor('room').map((f) => f.id), [1, 5, 6, 8])
  t.same(functionsFor('heating_circuit').map((f) => f.id), [2, 4, 5, 8])
  t.same(functionsFor('boiler').map((f) => f.id), [3, 8])
  t.same(functionsFor('toString'), [])
  const d = describeFunction(functionById(3)!)
  t.same(JSON.parse(JSON.stringify(d)), {
    id: 3, alphanumeric_id: 'operating_cycles', nameDE: 'Betriebsstunden und Taktung', nameEN: 'Operating hours and cycling',
    components: {
      boiler: { required: [], optional: [], alternatives: [{ need: 'state', groups: [['burner_state'], ['fuel_power']] }] },
      heat_pump: { required: [], optional: [], alternatives: [{ need: 'state', groups: [['compressor_state'], ['electric_power'], ['heat_power']] }] },
      chiller: { required: [], optional: [], alternatives: [{ need: 'state', groups: [['compressor_state'], ['electric_power'], ['cooling_power']] }] },
    },
  }, 'serialisable, no code')
})
