// The SQLite repository of catalog/roles.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/roles.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import { InvalidInputError, NotFoundError } from '../../core/errors.ts'
import type { AdminEndpoints, Role, TagAuthInput } from '../types.ts'
import { type RoleRow, type TagAuthRow, type RoleInput, roleNameTaken, ROLE_ENDPOINTS, ROLE_TAG_AUTHS, toRole } from '../roles.ts'

export class Roles {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db, private readonly adminEndpoints: AdminEndpoints) {
    this.sql = statements(db)
  }

  create(companyId: number, projectId: number | null, r: RoleInput, isAdmin = false): Role {
    this.assertNameFree(companyId, projectId, r.name)
    const id = Number(this.sql(
      'INSERT INTO roles (company_id, project_id, name, description, is_admin) VALUES (?, ?, ?, ?, ?)',
    ).run(companyId, projectId, r.name, r.description ?? '', isAdmin ? 1 : 0).lastInsertRowid)
    this.setEndpoints(id, r.authed_endpoints ?? [])
    for (const t of r.authed_tags ?? []) this.insertTagAuth(id, t)
    return this.get(id)
  }

  get(id: number): Role {
    return this.toRole(this.row(id))
  }

  /** Role `id` within the company, and within the project when `projectId` is given (null = company role). */
  getScoped(id: number, companyId: number, projectId: number | null): Role {
    const row = this.sql('SELECT * FROM roles WHERE id = ? AND company_id = ?').get(id, companyId) as RoleRow | undefined
    if (!row || row.project_id !== projectId) throw new NotFoundError(`Role ${id} not found`)
    return this.toRole(row)
  }

  companyOf(id: number): number {
    return this.row(id).company_id
  }

  listCompanyRoles(companyId: number): Role[] {
    return this.toRoles(this.sql('SELECT * FROM roles WHERE company_id = ? AND project_id IS NULL ORDER BY id').all(companyId) as RoleRow[])
  }

  listProjectRoles(projectId: number): Role[] {
    return this.toRoles(this.sql('SELECT * FROM roles WHERE project_id = ? ORDER BY id').all(projectId) as RoleRow[])
  }

  rolesOfUser(userId: number): Role[] {
    return this.toRoles(this.sql(
      'SELECT r.* FROM roles r JOIN user_roles ur ON ur.role_id = r.id WHERE ur.user_id = ? ORDER BY r.id',
    ).all(userId) as RoleRow[])
  }

  update(id: number, f: Partial<RoleInput>): Role {
    const row = this.row(id)
    this.assertNotAdmin(row)
    if (f.name !== undefined && f.name !== row.name) this.assertNameFree(row.company_id, row.project_id, f.name)
    this.sql('UPDATE roles SET name = ?, description = ? WHERE id = ?')
      .run(f.name ?? row.name, f.description ?? row.description, id)
    if (f.authed_endpoints) this.setEndpoints(id, f.authed_endpoints)
    if (f.authed_tags) {
      this.sql('DELETE FROM tag_auths WHERE role_id = ?').run(id)
      for (const t of f.authed_tags) this.insertTagAuth(id, t)
    }
    return this.get(id)
  }

  delete(id: number): Role {
    const role = this.get(id)
    this.assertNotAdmin(this.row(id))
    this.sql('DELETE FROM roles WHERE id = ?').run(id)
    return role
  }

  addTagAuth(roleId: number, t: TagAuthInput): Role {
    this.assertNotAdmin(this.row(roleId))
    this.insertTagAuth(roleId, t)
    return this.get(roleId)
  }

  removeTagAuth(roleId: number, tagAuthId: number): Role {
    this.assertNotAdmin(this.row(roleId))
    const { changes } = this.sql('DELETE FROM tag_auths WHERE id = ? AND role_id = ?').run(tagAuthId, roleId)
    if (changes === 0) throw new NotFoundError(`TagAuth ${tagAuthId} not found in role ${roleId}`)
    return this.get(roleId)
  }

  assign(userId: number, roleId: number): void {
    this.sql('INSERT OR IGNORE INTO user_roles (user_id, role_id) VALUES (?, ?)').run(userId, roleId)
  }

  unassign(userId: number, roleId: number): void {
    const { changes } = this.sql('DELETE FROM user_roles WHERE user_id = ? AND role_id = ?').run(userId, roleId)
    if (changes === 0) throw new NotFoundError(`User ${userId} does not hold role ${roleId}`)
  }

  private row(id: number): RoleRow {
    const row = this.sql('SELECT * FROM roles WHERE id = ?').get(id) as RoleRow | undefined
    if (!row) throw new NotFoundError(`Role ${id} not found`)
    return row
  }

  private assertNotAdmin(row: RoleRow): void {
    if (row.is_admin) throw new InvalidInputError('The admin role cannot be changed or deleted')
  }

  private assertNameFree(companyId: number, projectId: number | null, name: string): void {
    if (this.sql('SELECT 1 FROM roles WHERE company_id = ? AND IFNULL(project_id, 0) = ? AND name = ?')
      .get(companyId, projectId ?? 0, name)) {
      throw roleNameTaken(name)
    }
  }

  private setEndpoints(roleId: number, endpoints: number[]): void {
    this.sql('DELETE FROM role_endpoints WHERE role_id = ?').run(roleId)
    const ins = this.sql('INSERT OR IGNORE INTO role_endpoints (role_id, endpoint) VALUES (?, ?)')
    for (const e of endpoints) ins.run(roleId, e)
  }

  private insertTagAuth(roleId: number, t: TagAuthInput): void {
    this.sql('INSERT INTO tag_auths (role_id, key, value, read, write) VALUES (?, ?, ?, ?, ?)')
      .run(roleId, t.key, t.value, t.read ? 1 : 0, t.write ? 1 : 0)
  }

  private toRoles(rows: RoleRow[]): Role[] {
    return rows.map((r) => this.toRole(r))
  }

  private toRole(r: RoleRow): Role {
    const endpoints = r.is_admin ? [] : this.sql(ROLE_ENDPOINTS).pluck().all(r.id) as number[]
    return toRole(r, this.adminEndpoints, endpoints, this.sql(ROLE_TAG_AUTHS).all(r.id) as TagAuthRow[])
  }
}
