// Mapped components (spec 3 "Mapped components"; issue 12 item 2): an abstract component of
// the library (data/components, loaded by the engine) instantiated into a project, its pins
// mapped onto the project's datapoints and its attributes filled. The catalog stores ids
// only: which pins and attributes a component has is the library's business, checked by the
// caller. Pin rows reference the datapoint, so deleting a datapoint unmaps its pins, and
// deleting the project removes its components (cascades, migration 11).
import { statements, type Db } from './db.ts'
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

interface Row { id: number; project_id: number; component_id: number; display_name: string; tags: string; created_at: number }

export class ComponentsInProject {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db, private readonly now: () => number = Date.now) {
    this.sql = statements(db)
  }

  create(projectId: number, c: { component_id: number; display_name: string; tags: Record<string, string> }): ComponentInProject {
    const id = Number(this.sql('INSERT INTO components_in_project (project_id, component_id, display_name, tags, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(projectId, c.component_id, c.display_name, JSON.stringify(c.tags), this.now()).lastInsertRowid)
    return this.get(id)
  }

  find(id: number): ComponentInProject | undefined {
    const row = this.sql('SELECT * FROM components_in_project WHERE id = ?').get(id) as Row | undefined
    return row && this.record(row)
  }

  get(id: number): ComponentInProject {
    const c = this.find(id)
    if (!c) throw new NotFoundError(`Component in project ${id} not found`)
    return c
  }

  listByProject(projectId: number): ComponentInProject[] {
    return (this.sql('SELECT * FROM components_in_project WHERE project_id = ? ORDER BY id').all(projectId) as Row[]).map((r) => this.record(r))
  }

  update(id: number, f: { display_name?: string; tags?: Record<string, string> }): ComponentInProject {
    const cur = this.get(id)
    this.sql('UPDATE components_in_project SET display_name = ?, tags = ? WHERE id = ?')
      .run(f.display_name ?? cur.display_name, JSON.stringify(f.tags ?? cur.tags), id)
    return this.get(id)
  }

  /** Deletes the mapped component with its pins, attributes, analysis instances and results. */
  remove(id: number): void {
    this.sql('DELETE FROM components_in_project WHERE id = ?').run(id)
  }

  /** Maps pins (insert or replace), all in one unit. */
  setPins(id: number, pins: readonly { pin_id: number; datapoint: number }[]): ComponentInProject {
    const put = this.sql('INSERT INTO component_pin_datapoints (cip_id, pin_id, datapoint) VALUES (?, ?, ?) ON CONFLICT (cip_id, pin_id) DO UPDATE SET datapoint = excluded.datapoint')
    this.db.transaction(() => { for (const p of pins) put.run(id, p.pin_id, p.datapoint) })()
    return this.get(id)
  }

  removePins(id: number, pinIds: readonly number[]): ComponentInProject {
    const del = this.sql('DELETE FROM component_pin_datapoints WHERE cip_id = ? AND pin_id = ?')
    this.db.transaction(() => { for (const p of pinIds) del.run(id, p) })()
    return this.get(id)
  }

  /** Fills attributes (insert or replace), all in one unit. */
  setAttributes(id: number, attributes: readonly { attribute_id: number; value: string }[]): ComponentInProject {
    const put = this.sql('INSERT INTO component_attributes (cip_id, attribute_id, value) VALUES (?, ?, ?) ON CONFLICT (cip_id, attribute_id) DO UPDATE SET value = excluded.value')
    this.db.transaction(() => { for (const a of attributes) put.run(id, a.attribute_id, a.value) })()
    return this.get(id)
  }

  removeAttributes(id: number, attributeIds: readonly number[]): ComponentInProject {
    const del = this.sql('DELETE FROM component_attributes WHERE cip_id = ? AND attribute_id = ?')
    this.db.transaction(() => { for (const a of attributeIds) del.run(id, a) })()
    return this.get(id)
  }

  private record(r: Row): ComponentInProject {
    const pins = this.sql(`SELECT m.pin_id, m.datapoint, d.datapoint_id AS dataPointID FROM component_pin_datapoints m
      JOIN datapoints d ON d.id = m.datapoint WHERE m.cip_id = ? ORDER BY m.pin_id`).all(r.id) as PinMapping[]
    const attributes = this.sql('SELECT attribute_id, value FROM component_attributes WHERE cip_id = ? ORDER BY attribute_id').all(r.id) as { attribute_id: number; value: string }[]
    return { id: r.id, project_id: r.project_id, component_id: r.component_id, display_name: r.display_name, tags: JSON.parse(r.tags), pins, attributes, created_at: r.created_at }
  }
}
