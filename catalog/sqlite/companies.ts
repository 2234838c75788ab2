// The SQLite repository of catalog/companies.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/companies.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import { NotFoundError } from '../../core/errors.ts'
import type { Company } from '../types.ts'
import { companyTaken } from '../companies.ts'

export class Companies {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db) {
    this.sql = statements(db)
  }

  create(name: string, description = ''): Company {
    if (this.sql('SELECT 1 FROM companies WHERE name = ?').get(name)) {
      throw companyTaken(name)
    }
    const { lastInsertRowid } = this.db
      .prepare('INSERT INTO companies (name, description, created_at) VALUES (?, ?, ?)')
      .run(name, description, Date.now())
    const id = Number(lastInsertRowid)
    // Rule 6: every company gets an `admin` role with all permissions of its scope.
    this.sql('INSERT INTO roles (company_id, project_id, name, description, is_admin) VALUES (?, NULL, ?, ?, 1)')
      .run(id, 'admin', 'All permissions of the company')
    return { id, name, description }
  }

  get(id: number): Company {
    const row = this.sql('SELECT id, name, description FROM companies WHERE id = ?').get(id) as Company | undefined
    if (!row) throw new NotFoundError(`Company ${id} not found`)
    return row
  }

  findByName(name: string): Company | undefined {
    return this.sql('SELECT id, name, description FROM companies WHERE name = ?').get(name) as Company | undefined
  }

  list(): Company[] {
    return this.sql('SELECT id, name, description FROM companies ORDER BY id').all() as Company[]
  }

  update(id: number, fields: { name?: string; description?: string }): Company {
    const current = this.get(id)
    const name = fields.name ?? current.name
    const description = fields.description ?? current.description
    if (name !== current.name && this.findByName(name)) throw companyTaken(name)
    this.sql('UPDATE companies SET name = ?, description = ? WHERE id = ?').run(name, description, id)
    return { id, name, description }
  }

  /** Deletes the company with everything in it (foreign keys cascade). Returns its project ids. */
  delete(id: number): { company: Company; projectIds: number[] } {
    const company = this.get(id)
    const projectIds = (this.sql('SELECT id FROM projects WHERE company_id = ?').all(id) as { id: number }[]).map((r) => r.id)
    this.sql('DELETE FROM companies WHERE id = ?').run(id)
    return { company, projectIds }
  }

  adminRoleId(companyId: number): number {
    const row = this.sql('SELECT id FROM roles WHERE company_id = ? AND project_id IS NULL AND is_admin = 1').get(companyId) as { id: number }
    return row.id
  }
}
