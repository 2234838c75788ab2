// The SQLite repository of catalog/users.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/users.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import { NotFoundError } from '../../core/errors.ts'
import { hashPassword } from '../passwords.ts'
import type { User, UserWithHash } from '../types.ts'
import { type NewUser, emailTaken } from '../users.ts'

const COLUMNS = 'id, company_id, email, first_name AS firstName, last_name AS lastName'

export class Users {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db) {
    this.sql = statements(db)
  }

  create(companyId: number, u: NewUser): User {
    this.assertEmailFree(u.email)
    const { lastInsertRowid } = this.sql(
      'INSERT INTO users (company_id, email, first_name, last_name, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(companyId, u.email, u.firstName, u.lastName, hashPassword(u.password), Date.now())
    return this.get(Number(lastInsertRowid))
  }

  get(id: number): User {
    const row = this.sql(`SELECT ${COLUMNS} FROM users WHERE id = ?`).get(id) as User | undefined
    if (!row) throw new NotFoundError(`User ${id} not found`)
    return row
  }

  /** With the password hash: for authentication only, never for a response. */
  findWithHash(id: number): UserWithHash | undefined {
    return this.sql(`SELECT ${COLUMNS}, password_hash FROM users WHERE id = ?`).get(id) as UserWithHash | undefined
  }

  findByEmailWithHash(email: string): UserWithHash | undefined {
    return this.sql(`SELECT ${COLUMNS}, password_hash FROM users WHERE email = ?`).get(email) as UserWithHash | undefined
  }

  listByCompany(companyId: number): User[] {
    return this.sql(`SELECT ${COLUMNS} FROM users WHERE company_id = ? ORDER BY id`).all(companyId) as User[]
  }

  /** Same company only: users of other companies do not exist for the caller. */
  getInCompany(id: number, companyId: number): User {
    const u = this.sql(`SELECT ${COLUMNS} FROM users WHERE id = ? AND company_id = ?`).get(id, companyId) as User | undefined
    if (!u) throw new NotFoundError(`User ${id} not found`)
    return u
  }

  update(id: number, f: Partial<NewUser>): User {
    const cur = this.get(id)
    if (f.email !== undefined && f.email.toLowerCase() !== cur.email.toLowerCase()) this.assertEmailFree(f.email)
    this.sql('UPDATE users SET email = ?, first_name = ?, last_name = ? WHERE id = ?')
      .run(f.email ?? cur.email, f.firstName ?? cur.firstName, f.lastName ?? cur.lastName, id)
    if (f.password !== undefined) {
      this.sql('UPDATE users SET password_hash = ? WHERE id = ?').run(hashPassword(f.password), id)
      // A new password ends the sessions issued under the old one.
      this.sql('DELETE FROM tokens WHERE user_id = ?').run(id)
    }
    return this.get(id)
  }

  /** Deletes the user and the user's metadata (role assignments, tokens) by cascade (rule 9). */
  delete(id: number): User {
    const u = this.get(id)
    this.sql('DELETE FROM users WHERE id = ?').run(id)
    return u
  }

  private assertEmailFree(email: string): void {
    if (this.sql('SELECT 1 FROM users WHERE email = ?').get(email)) {
      throw emailTaken(email)
    }
  }
}
