// Pin alphanumeric_ids of the abstract components (the component library in
// data/components/ uses the same ids; engine/ may not import data/, so the ids the
// functions rely on are repeated here and checked against the library by its tests).
export const COMPONENT_PINS: Readonly<Record<string, readonly string[]>> = {
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

/** PinSpec shorthand. */
export function pins(required: string[], optional: string[] = [], alternatives: Array<{ need: string; groups: string[][] }> = []) {
  return { required, optional, alternatives }
}
