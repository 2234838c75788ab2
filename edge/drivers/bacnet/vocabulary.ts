// BACnet numbers the agent names (issue 32 item 2): object types it reads and writes, the
// properties it asks for, and engineering units translated to the platform's unit vocabulary
// (the names engine/units.ts converts: °C, %, kW, m³/h, ...). A unit without a translation is
// published as `bacnet-unit-<n>`, so nothing is lost and it can be mapped later.
export const OBJECT_TYPES: Record<number, string> = {
  0: 'analog-input', 1: 'analog-output', 2: 'analog-value', 3: 'binary-input', 4: 'binary-output', 5: 'binary-value',
  13: 'multi-state-input', 14: 'multi-state-output', 19: 'multi-state-value',
}
export const DEVICE = 8
/** Types with a priority array (commandable): outputs always; values usually (checked by reading it). */
export const COMMANDABLE_TYPES = new Set([1, 2, 4, 5, 14, 19])
export const ANALOG_TYPES = new Set([0, 1, 2])
export const BINARY_TYPES = new Set([3, 4, 5])

export const PROP = {
  DESCRIPTION: 28, OBJECT_IDENTIFIER: 75, OBJECT_LIST: 76, OBJECT_NAME: 77, OBJECT_TYPE: 79, OUT_OF_SERVICE: 81,
  PRESENT_VALUE: 85, PRIORITY_ARRAY: 87, RELINQUISH_DEFAULT: 104, STATUS_FLAGS: 111, UNITS: 117,
} as const

/** BACnet application tags used for values. */
export const TAG = { NULL: 0, BOOLEAN: 1, UNSIGNED: 2, REAL: 4, CHARACTER_STRING: 7, ENUMERATED: 9, OBJECT_ID: 12 } as const

const UNITS: Record<number, string> = {
  62: '°C', 63: 'K', 64: '°F', 98: '%', 29: '%', 95: '',
  53: 'Pa', 133: 'hPa', 54: 'kPa', 134: 'mbar', 55: 'bar', 56: 'psi',
  47: 'W', 48: 'kW', 49: 'MW', 132: 'mW', 18: 'Wh', 19: 'kWh', 146: 'MWh', 16: 'J', 17: 'kJ', 126: 'MJ',
  5: 'V', 124: 'mV', 6: 'kV', 3: 'A', 2: 'mA', 8: 'VA', 9: 'kVA', 27: 'Hz',
  80: 'm³', 82: 'l', 85: 'm³/s', 135: 'm³/h', 87: 'l/s', 88: 'l/min', 136: 'l/h', 84: 'ft³/min',
  74: 'm/s', 37: 'lx', 39: 'kg', 96: 'ppm', 71: 'h', 72: 'min', 73: 's', 159: 'ms',
}

/** The platform's name of a BACnet engineering unit ('' for no-units). */
export function unitName(n: number): string {
  return UNITS[n] ?? `bacnet-unit-${n}`
}
