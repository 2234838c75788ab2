// The SQLite repository of catalog/components-in-project.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/components-in-project.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import { type PinMapping, type ComponentInProject, type ComponentRow, PINS_OF, ATTRIBUTES_OF, PUT_PIN, PUT_ATTRIBUTE, componentNotFound, toComponent } from '../components-in-project.ts'

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
    const row = this.sql('SELECT * FROM components_in_project WHERE id = ?').get(id) as ComponentRow | undefined
    return row && this.record(row)
  }

  get(id: number): ComponentInProject {
    const c = this.find(id)
    if (!c) throw componentNotFound(id)
    return c
  }

  listByProject(projectId: number): ComponentInProject[] {
    return (this.sql('SELECT * FROM components_in_project WHERE project_id = ? ORDER BY id').all(projectId) as ComponentRow[]).map((r) => this.record(r))
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
    const put = this.sql(PUT_PIN)
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
    const put = this.sql(PUT_ATTRIBUTE)
    this.db.transaction(() => { for (const a of attributes) put.run(id, a.attribute_id, a.value) })()
    return this.get(id)
  }

  removeAttributes(id: number, attributeIds: readonly number[]): ComponentInProject {
    const del = this.sql('DELETE FROM component_attributes WHERE cip_id = ? AND attribute_id = ?')
    this.db.transaction(() => { for (const a of attributeIds) del.run(id, a) })()
    return this.get(id)
  }

  private record(r: ComponentRow): ComponentInProject {
    return toComponent(r, this.sql(PINS_OF).all(r.id) as PinMapping[], this.sql(ATTRIBUTES_OF).all(r.id) as { attribute_id: number; value: string }[])
  }
}
