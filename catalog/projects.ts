import { statements, type Db } from './db.ts'
import { NotFoundError } from './errors.ts'
import { ALL_DATAPOINTS, type Roles } from './roles.ts'
import type { Project, ProjectSettings, Role } from './types.ts'

const COLUMNS = 'id, company_id, name, description'

export class Projects {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db, private readonly roles: Roles) {
    this.sql = statements(db)
  }

  /** Creates the project and its `admin` role, and gives that role to the creator (rule 6). */
  create(companyId: number, f: { name: string; description?: string }, creatorUserId: number | null): { project: Project; role: Role } {
    return this.db.transaction(() => {
      const id = Number(this.sql('INSERT INTO projects (company_id, name, description, created_at) VALUES (?, ?, ?, ?)')
        .run(companyId, f.name, f.description ?? '', Date.now()).lastInsertRowid)
      const role = this.roles.create(companyId, id, { name: 'admin', description: 'All permissions of the project', authed_tags: [ALL_DATAPOINTS] }, true)
      if (creatorUserId !== null) this.roles.assign(creatorUserId, role.id)
      return { project: this.get(id), role }
    })()
  }

  get(id: number): Project {
    const row = this.sql(`SELECT ${COLUMNS} FROM projects WHERE id = ?`).get(id) as Project | undefined
    if (!row) throw new NotFoundError(`Project ${id} not found`)
    return row
  }

  /** The project if it belongs to the company; otherwise it does not exist for the caller. */
  getInCompany(id: number, companyId: number): Project {
    const p = this.sql(`SELECT ${COLUMNS} FROM projects WHERE id = ? AND company_id = ?`).get(id, companyId) as Project | undefined
    if (!p) throw new NotFoundError(`Project ${id} not found`)
    return p
  }

  settings(id: number): ProjectSettings {
    const row = this.sql(`SELECT ${COLUMNS}, hash_id_length, sampling_n FROM projects WHERE id = ?`).get(id) as ProjectSettings | undefined
    if (!row) throw new NotFoundError(`Project ${id} not found`)
    return row
  }

  listByCompany(companyId: number): Project[] {
    return this.sql(`SELECT ${COLUMNS} FROM projects WHERE company_id = ? ORDER BY id`).all(companyId) as Project[]
  }

  listByIds(ids: number[]): Project[] {
    if (ids.length === 0) return []
    return this.sql(`SELECT ${COLUMNS} FROM projects WHERE id IN (${ids.map(() => '?').join(',')}) ORDER BY id`).all(...ids) as Project[]
  }

  update(id: number, f: { name?: string; description?: string }): Project {
    const cur = this.get(id)
    this.sql('UPDATE projects SET name = ?, description = ? WHERE id = ?')
      .run(f.name ?? cur.name, f.description ?? cur.description, id)
    return this.get(id)
  }

  /** Deletes the project's roles, datapoints, tags and other metadata by cascade (rule 9). */
  delete(id: number): Project {
    const p = this.get(id)
    this.sql('DELETE FROM projects WHERE id = ?').run(id)
    return p
  }
}
