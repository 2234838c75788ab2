// Short-lived MQTT broker accounts of a project (spec 1 "MQTT account" and its lifecycle),
// and operator-issued accounts without expiry (valid_until NULL). Usernames are unique
// across the broker; passwords are stored only as scrypt hashes.
import { statements, type Db } from './db.ts'
import { ConflictError, NotFoundError } from './errors.ts'
import { hashPassword } from './passwords.ts'

export type MqttRights = 'read' | 'write'

export interface MqttAccountRow {
  id: number
  project_id: number
  username: string
  password_hash: string
  rights: MqttRights
  description: string
  /** Milliseconds since the epoch; null = no expiry (operator-issued). */
  valid_until: number | null
}

export interface MqttAccountInput { username: string; password: string; rights?: MqttRights; description?: string; validUntil: number | null }

export class MqttAccounts {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db, private readonly now: () => number = Date.now) {
    this.sql = statements(db)
  }

  create(projectId: number, a: MqttAccountInput): MqttAccountRow {
    this.removeExpired() // an expired account's username is free again
    if (this.sql('SELECT 1 FROM mqtt_accounts WHERE username = ?').get(a.username)) {
      throw new ConflictError(`An MQTT account with username '${a.username}' already exists`)
    }
    const id = Number(this.sql('INSERT INTO mqtt_accounts (project_id, username, password_hash, rights, description, valid_until) VALUES (?, ?, ?, ?, ?, ?)')
      .run(projectId, a.username, hashPassword(a.password), a.rights ?? 'read', a.description ?? '', a.validUntil).lastInsertRowid)
    return this.get(projectId, id)
  }

  get(projectId: number, id: number): MqttAccountRow {
    const row = this.sql('SELECT * FROM mqtt_accounts WHERE id = ? AND project_id = ? AND (valid_until IS NULL OR valid_until > ?)').get(id, projectId, this.now()) as MqttAccountRow | undefined
    if (!row) throw new NotFoundError(`MQTT account ${id} not found`)
    return row
  }

  list(projectId: number): MqttAccountRow[] {
    return this.sql('SELECT * FROM mqtt_accounts WHERE project_id = ? AND (valid_until IS NULL OR valid_until > ?) ORDER BY id').all(projectId, this.now()) as MqttAccountRow[]
  }

  /** A valid account by username, for authentication on CONNECT. */
  findValid(username: string): MqttAccountRow | undefined {
    return this.sql('SELECT * FROM mqtt_accounts WHERE username = ? AND (valid_until IS NULL OR valid_until > ?)').get(username, this.now()) as MqttAccountRow | undefined
  }

  update(projectId: number, id: number, f: { password?: string; rights?: MqttRights; description?: string; validUntil?: number }): MqttAccountRow {
    const cur = this.get(projectId, id)
    this.sql('UPDATE mqtt_accounts SET password_hash = ?, rights = ?, description = ?, valid_until = ? WHERE id = ?').run(
      f.password === undefined ? cur.password_hash : hashPassword(f.password),
      f.rights ?? cur.rights, f.description ?? cur.description,
      f.validUntil === undefined ? cur.valid_until : f.validUntil, id)
    return this.get(projectId, id)
  }

  delete(projectId: number, id: number): MqttAccountRow {
    const row = this.get(projectId, id)
    this.sql('DELETE FROM mqtt_accounts WHERE id = ?').run(id)
    return row
  }

  deleteByUsername(username: string): boolean {
    return this.sql('DELETE FROM mqtt_accounts WHERE username = ?').run(username).changes > 0
  }

  /** Removes accounts whose validity ended; returns their usernames. */
  removeExpired(): string[] {
    const names = this.sql('SELECT username FROM mqtt_accounts WHERE valid_until IS NOT NULL AND valid_until <= ?').pluck().all(this.now()) as string[]
    if (names.length > 0) this.sql('DELETE FROM mqtt_accounts WHERE valid_until IS NOT NULL AND valid_until <= ?').run(this.now())
    return names
  }

  /** Every valid account: id → valid_until (null = no expiry). */
  validUntilById(): Map<number, number | null> {
    const rows = this.sql('SELECT id, valid_until FROM mqtt_accounts WHERE valid_until IS NULL OR valid_until > ?').all(this.now()) as { id: number; valid_until: number | null }[]
    return new Map(rows.map((r) => [r.id, r.valid_until]))
  }

}
