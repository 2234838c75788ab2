import { ConflictError, InvalidInputError } from '../core/errors.ts'
import { IANAZone } from 'luxon'

export const PROJECT_COLUMNS = 'id, company_id, name, description'
export const SETTINGS = `${PROJECT_COLUMNS}, load_balancing_group, project_handle, hash_id_length, sampling_n, time_zone`
const TOPIC_PART = /^[A-Za-z0-9_-]{1,64}$/

export type MqttSettings = { group?: string; handle?: string; hashIdLength?: number; samplingN?: number }

/** The 400 of an operator's MQTT setting out of range. */
export function assertMqttSettings(f: MqttSettings): void {
  for (const [name, v] of [['load_balancing_group', f.group], ['project_handle', f.handle]] as const) {
    if (v !== undefined && (!TOPIC_PART.test(v) || v === 'META' || v === 'CONTROLS')) {
      throw new InvalidInputError(`${name} must be 1 to 64 letters, digits, '-' or '_' (not META or CONTROLS), got '${v}'`)
    }
  }
  if (f.hashIdLength !== undefined && !(Number.isInteger(f.hashIdLength) && f.hashIdLength >= 4 && f.hashIdLength <= 12)) {
    throw new InvalidInputError(`hash_id_length must be an integer from 4 to 12, got ${f.hashIdLength}`)
  }
  if (f.samplingN !== undefined && !(Number.isInteger(f.samplingN) && f.samplingN >= 1)) throw new InvalidInputError(`sampling N must be a positive integer, got ${f.samplingN}`)
}

/** The 400 of a time zone that is no IANA name (both adapters). */
export function assertTimeZone(zone: string | undefined): void {
  if (zone !== undefined && !IANAZone.isValidZone(zone)) {
    throw new InvalidInputError(`Invalid time_zone '${zone}': use an IANA time zone name such as Europe/Berlin or UTC`)
  }
}

/** The 409 of a project handle in use (both adapters). */
export const handleTaken = (handle: string) => new ConflictError(`The project handle '${handle}' is taken`)
