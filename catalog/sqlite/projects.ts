// The SQLite repository of catalog/projects.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/projects.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import { NotFoundError } from '../../core/errors.ts'
import { hashId } from '../hash-id.ts'
import { ALL_DATAPOINTS } from '../roles.ts'
import type { Roles } from './roles.ts'
import type { Project, ProjectSettings, Role } from '../types.ts'
import { PROJECT_COLUMNS, SETTINGS, assertMqttSettings, assertTimeZone, handleTaken } from '../projects.ts'

export class Projects {
  private readonly sql: ReturnType<typeof statements>

  /** Whether new projects are enabled for virtual datapoints (configuration). */
  vdpEnabledByDefault = true

  constructor (private readonly db: Db, private readonly roles: Roles) {
    this.sql = statements(db)
  }

  /** Creates the project and its `admin` role, and gives that role to the creator (rule 6). */
  create(companyId: number, f: { name: string; description?: string }, creatorUserId: number | null): { project: Project; role: Role } {
    return this.db.transaction(() => {
      const id = Number(this.sql('INSERT INTO projects (company_id, name, description, created_at) VALUES (?, ?, ?, ?)')
        .run(companyId, f.name, f.description ?? '', Date.now()).lastInsertRowid)
      // Default topic handle; unique because the id is. The operator may change it (CLI).
      this.sql('UPDATE projects SET project_handle = ?, vdp_enabled = ? WHERE id = ?').run(`p${id}`, this.vdpEnabledByDefault ? 1 : 0, id)
      const role = this.roles.create(companyId, id, { name: 'admin', description: 'All permissions of the project', authed_tags: [ALL_DATAPOINTS] }, true)
      if (creatorUserId !== null) this.roles.assign(creatorUserId, role.id)
      return { project: this.get(id), role }
    })()
  }

  get(id: number): Project {
    const row = this.sql(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ?`).get(id) as Project | undefined
    if (!row) throw new NotFoundError(`Project ${id} not found`)
    return row
  }

  /** The project if it belongs to the company; otherwise it does not exist for the caller. */
  getInCompany(id: number, companyId: number): Project {
    const p = this.sql(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ? AND company_id = ?`).get(id, companyId) as Project | undefined
    if (!p) throw new NotFoundError(`Project ${id} not found`)
    return p
  }

  settings(id: number): ProjectSettings {
    const row = this.sql(`SELECT ${SETTINGS} FROM projects WHERE id = ?`).get(id) as ProjectSettings | undefined
    if (!row) throw new NotFoundError(`Project ${id} not found`)
    return row
  }

  /** The project addressed by an MQTT topic prefix `<group>/<handle>`. */
  findByTopic(group: string, handle: string): ProjectSettings | undefined {
    return this.sql(`SELECT ${SETTINGS} FROM projects WHERE project_handle = ? AND load_balancing_group = ?`).get(handle, group) as ProjectSettings | undefined
  }

  /** Whether virtual datapoints may be created and run in the project (operator switch). */
  vdpEnabled(id: number): boolean {
    return this.sql('SELECT vdp_enabled FROM projects WHERE id = ?').pluck().get(id) === 1
  }

  setVdpEnabled(id: number, enabled: boolean): void {
    this.get(id)
    this.sql('UPDATE projects SET vdp_enabled = ? WHERE id = ?').run(enabled ? 1 : 0, id)
  }

  /** Operator settings of the MQTT interface; a new hash-id length re-derives every hash id. */
  setMqtt(id: number, f: { group?: string; handle?: string; hashIdLength?: number; samplingN?: number }): ProjectSettings {
    const cur = this.settings(id)
    assertMqttSettings(f)
    if (f.handle !== undefined && f.handle !== cur.project_handle && this.sql('SELECT 1 FROM projects WHERE project_handle = ?').get(f.handle)) {
      throw handleTaken(f.handle)
    }
    this.db.transaction(() => {
      this.sql('UPDATE projects SET load_balancing_group = ?, project_handle = ?, hash_id_length = ?, sampling_n = ? WHERE id = ?')
        .run(f.group ?? cur.load_balancing_group, f.handle ?? cur.project_handle, f.hashIdLength ?? cur.hash_id_length, f.samplingN ?? cur.sampling_n, id)
      if (f.hashIdLength !== undefined && f.hashIdLength !== cur.hash_id_length) {
        const update = this.sql('UPDATE datapoints SET hash_id = ? WHERE id = ?')
        for (const dp of this.sql('SELECT id, datapoint_id FROM datapoints WHERE project_id = ?').all(id) as { id: number; datapoint_id: string }[]) {
          update.run(hashId(dp.datapoint_id, f.hashIdLength), dp.id)
        }
      }
    })()
    return this.settings(id)
  }

  listByCompany(companyId: number): Project[] {
    return this.sql(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE company_id = ? ORDER BY id`).all(companyId) as Project[]
  }

  listByIds(ids: number[]): Project[] {
    if (ids.length === 0) return []
    return this.sql(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id IN (${ids.map(() => '?').join(',')}) ORDER BY id`).all(...ids) as Project[]
  }

  update(id: number, f: { name?: string; description?: string; time_zone?: string }): Project {
    const cur = this.settings(id)
    assertTimeZone(f.time_zone)
    this.sql('UPDATE projects SET name = ?, description = ?, time_zone = ? WHERE id = ?')
      .run(f.name ?? cur.name, f.description ?? cur.description, f.time_zone ?? cur.time_zone, id)
    return this.get(id)
  }

  /** Deletes the project's roles, datapoints, tags and other metadata by cascade (rule 9). */
  delete(id: number): Project {
    const p = this.get(id)
    this.sql('DELETE FROM projects WHERE id = ?').run(id)
    return p
  }
}
