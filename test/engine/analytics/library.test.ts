// The component library (issue 12 item 1): the versioned files of data/components load, carry
// the fixed ids every analysis function relies on, and a broken file fails with one line.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_LIBRARY_DIR, LibraryError, loadComponentLibrary, valueProblem } from '../../../engine/analytics/library.ts'

/** The ids both helpers of issue 12 rely on (never renamed). */
const FIXED: Record<string, string[]> = {
  boiler: ['flow_temp', 'return_temp', 'burner_state', 'modulation', 'fuel_power', 'outdoor_temp'],
  heat_pump: ['flow_temp', 'return_temp', 'compressor_state', 'electric_power', 'heat_power', 'outdoor_temp', 'source_temp'],
  chiller: ['supply_temp', 'return_temp', 'compressor_state', 'electric_power', 'cooling_power'],
  air_handling_unit: ['supply_air_temp', 'supply_air_temp_setpoint', 'return_air_temp', 'outdoor_temp', 'heating_valve', 'cooling_valve', 'fan_state'],
  heating_circuit: ['flow_temp', 'return_temp', 'flow_temp_setpoint', 'outdoor_temp', 'pump_state', 'valve_position'],
  room: ['room_temp', 'room_temp_setpoint', 'occupancy', 'heating_valve', 'cooling_valve', 'co2', 'humidity'],
  weather_station: ['outdoor_temp', 'outdoor_humidity', 'global_radiation', 'wind_speed'],
  pump: ['pump_state', 'speed', 'electric_power'],
  fan: ['fan_state', 'speed', 'electric_power'],
  heat_meter: ['energy', 'heat_power', 'flow_temp', 'return_temp', 'volume_flow', 'outdoor_temp'],
  electricity_meter: ['energy', 'electric_power', 'outdoor_temp'],
  pv_plant: ['electric_power', 'energy', 'irradiance', 'module_temp'],
}
const ATTRIBUTES: Record<string, string[]> = {
  room: ['comfort_min', 'comfort_max', 'occupied_hours'],
  heating_circuit: ['design_outdoor_temp', 'design_flow_temp', 'heating_limit_temp'],
  boiler: ['rated_power', 'min_cycle_minutes'],
  heat_pump: ['rated_power', 'min_cycle_minutes'],
  heat_meter: ['base_temp'],
  electricity_meter: ['base_temp'],
}

t.test('the seeded library holds the fixed components, pins and attribute keys', async (t) => {
  const lib = loadComponentLibrary()
  t.ok(lib.components.length >= 12)
  for (const [aid, pins] of Object.entries(FIXED)) {
    const c = lib.byAlphanumericId(aid)
    if (!c) { t.fail(`component ${aid} missing`); continue }
    t.same(pins.filter((p) => !c.pins.some((x) => x.alphanumeric_id === p)), [], `${aid}: every fixed pin`)
    for (const p of c.pins) {
      t.same([...new Set(p.pin_attributes.map((a) => a.key))], ['L1_analog_digital', 'L2_virtual', 'L3_direction', 'L4_type', 'L5_unit'], `${aid}.${p.alphanumeric_id}: L1-L5`)
    }
  }
  for (const [aid, keys] of Object.entries(ATTRIBUTES)) {
    const c = lib.byAlphanumericId(aid)!
    t.same(keys.filter((k) => !c.attributeDefinitions.some((a) => a.key === k)), [], `${aid}: attribute keys`)
  }
  const room = lib.byAlphanumericId('room')!
  t.match(lib.attribute(room, { key: 'occupied_hours' }), { value_type: 'json' })
  t.match(lib.attribute(room, { key: 'comfort_min' }), { value_type: 'float', default: '20' })
  t.match(lib.attribute(lib.byAlphanumericId('heat_meter')!, { key: 'base_temp' }), { default: '15' })
  t.same([lib.get(1)?.alphanumeric_id, lib.get(5)?.alphanumeric_id, lib.get(12)?.alphanumeric_id], ['boiler', 'heating_circuit', 'pv_plant'], 'stable integer ids')
})

t.test('a broken file is refused with one line naming the file and the problem', async (t) => {
  const broken = (edit: (c: any) => void, name = '05-heating_circuit.json') => {
    const dir = mkdtempSync(join(tmpdir(), 'lintel-library-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    cpSync(DEFAULT_LIBRARY_DIR, dir, { recursive: true })
    const c = JSON.parse(readFileSync(join(dir, name), 'utf8'))
    edit(c)
    writeFileSync(join(dir, name), JSON.stringify(c))
    return dir
  }
  const refusal = (dir: string) => { try { loadComponentLibrary(dir); return 'loaded' } catch (err) { t.type(err, LibraryError); return (err as Error).message } }
  t.equal(refusal(broken((c) => { c.pins[0].pin_attributes[0].probability = 1.5 })), 'component library: 05-heating_circuit.json: /pins/0/pin_attributes/0/probability must be <= 1')
  t.equal(refusal(broken((c) => { c.pins[1].id = c.pins[0].id })), 'component library: 05-heating_circuit.json: pin id 501 is also used in 05-heating_circuit.json')
  t.equal(refusal(broken((c) => { c.id = 1 })), 'component library: 05-heating_circuit.json: component id 1 is also used in 01-boiler.json')
  t.equal(refusal(broken((c) => { c.attributeDefinitions[0].value_type = 'date' })), 'component library: 05-heating_circuit.json: /attributeDefinitions/0/value_type must be equal to one of the allowed values (string, json, float)')
  t.equal(refusal(broken((c) => { c.attributeDefinitions[0].default = 'cold' })), "component library: 05-heating_circuit.json: default of design_outdoor_temp: 'cold' is not a number (value_type float)")
  const dir = t.testdir({ 'x.json': '{"id": 1,' })
  t.match(refusal(dir), /^component library: x\.json: not valid JSON: /)
  t.match(refusal(join(dir, 'missing')), /^component library: cannot read /)

  // The start stops with exactly this line (exit code 2), before anything is created.
  const bad = broken((c) => { delete c.nameEN })
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: { ...process.env, LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_DATA_DIR: join(dir, 'data'), LINTEL_COMPONENTS_DIR: bad }, encoding: 'utf8',
  })
  t.equal(run.status, 2)
  t.equal(run.stderr, "lintel: cannot start: component library: 05-heating_circuit.json: / must have required property 'nameEN'\n")
})

t.test('attribute values by value_type', async (t) => {
  t.equal(valueProblem('float', '-12.5'), undefined)
  t.equal(valueProblem('float', ' '), "' ' is not a number (value_type float)")
  t.equal(valueProblem('float', '1e400'), "'1e400' is not a number (value_type float)")
  t.equal(valueProblem('json', '{"mon":["07:00","18:00"]}'), undefined)
  t.equal(valueProblem('json', '{mon'), "'{mon' is not valid JSON (value_type json)")
  t.equal(valueProblem('string', ''), undefined)
})
