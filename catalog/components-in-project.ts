// Mapped components (spec 3 "Mapped components"; issue 12 item 2): an abstract component of
// the library (data/components, loaded by the engine) instantiated into a project, its pins
// mapped onto the project's datapoints and its attributes filled. The catalog stores ids
// only: which pins and attributes a component has is the library's business, checked by the
// caller. Pin rows reference the datapoint, so deleting a datapoint unmaps its pins, and
// deleting the project removes its components (cascades, migration 11).
import { NotFoundError } from '../core/errors.ts'

export interface PinMapping { pin_id: number; datapoint: number; dataPointID: string }

export interface ComponentInProject {
  id: number
  project_id: number
  component_id: number
  display_name: string
  tags: Record<string, string>
  /** Mapped pins, by pin id order. */
  pins: PinMapping[]
  /** Filled attributes: attribute definition id → value (text). */
  attributes: { attribute_id: number; value: string }[]
  /** Milliseconds since the epoch. */
  created_at: number
}

export interface ComponentRow { id: number; project_id: number; component_id: number; display_name: string; tags: string; created_at: number }

// Queries both adapters run as they are.
export const PINS_OF = `SELECT m.pin_id, m.datapoint, d.datapoint_id AS "dataPointID" FROM component_pin_datapoints m
  JOIN datapoints d ON d.id = m.datapoint WHERE m.cip_id = ? ORDER BY m.pin_id`
export const ATTRIBUTES_OF = 'SELECT attribute_id, value FROM component_attributes WHERE cip_id = ? ORDER BY attribute_id'
export const PUT_PIN = 'INSERT INTO component_pin_datapoints (cip_id, pin_id, datapoint) VALUES (?, ?, ?) ON CONFLICT (cip_id, pin_id) DO UPDATE SET datapoint = excluded.datapoint'
export const PUT_ATTRIBUTE = 'INSERT INTO component_attributes (cip_id, attribute_id, value) VALUES (?, ?, ?) ON CONFLICT (cip_id, attribute_id) DO UPDATE SET value = excluded.value'

export const componentNotFound = (id: number) => new NotFoundError(`Component in project ${id} not found`)

/** The record of a row with its mapped pins and filled attributes. */
export function toComponent(r: ComponentRow, pins: PinMapping[], attributes: { attribute_id: number; value: string }[]): ComponentInProject {
  return { id: r.id, project_id: r.project_id, component_id: r.component_id, display_name: r.display_name, tags: JSON.parse(r.tags), pins, attributes, created_at: r.created_at }
}
