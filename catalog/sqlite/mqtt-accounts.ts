// The SQLite repository of catalog/mqtt-accounts.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/mqtt-accounts.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { randomBytes } from 'node:crypto'
import { statements, type Db } from './db.ts'
import { NotFoundError } from '../../core/errors.ts'
import { hashPassword } from '../passwords.ts'
import { type MqttAccountChange, FULL_REACH, type MqttAccountRow, type MqttAccountWithReach, type MqttAccountInput, type ReachRow, withReach, assertUsername, usernameTaken, grantOf, type ValidAccount } from '../mqtt-accounts.ts'

export class MqttAccounts {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db, private readonly now: () => number = Date.now) {
    this.sql = statements(db)
  }

  create(projectId: number, a: MqttAccountInput): MqttAccountRow {
    assertUsername(a.username)
    return this.db.transaction(() => {
      this.removeExpired() // an expired account's username is free again
      if (this.sql('SELECT 1 FROM mqtt_accounts WHERE username = ?').get(a.username)) {
        throw usernameTaken(a.username)
      }
      const id = Number(this.sql('INSERT INTO mqtt_accounts (project_id, username, password_hash, rights, description, valid_until, edge) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(projectId, a.username, hashPassword(a.password), a.rights ?? 'read', a.description ?? '', a.validUntil, a.edge ? 1 : 0).lastInsertRowid)
      const reach = a.reach ?? FULL_REACH
      this.sql('INSERT INTO mqtt_account_reach (account_id, session_scope, write_filter, read_filter) VALUES (?, ?, ?, ?)')
        .run(id, randomBytes(12).toString('hex'), JSON.stringify(reach.write), JSON.stringify(reach.read))
      return this.get(projectId, id)
    })()
  }

  get(projectId: number, id: number): MqttAccountRow {
    const row = this.sql('SELECT * FROM mqtt_accounts WHERE id = ? AND project_id = ? AND (valid_until IS NULL OR valid_until > ?)').get(id, projectId, this.now()) as MqttAccountRow | undefined
    if (!row) throw new NotFoundError(`MQTT account ${id} not found`)
    return row
  }

  list(projectId: number): MqttAccountRow[] {
    return this.sql('SELECT * FROM mqtt_accounts WHERE project_id = ? AND (valid_until IS NULL OR valid_until > ?) ORDER BY id').all(projectId, this.now()) as MqttAccountRow[]
  }

  /** A valid account by username with its reach, for authentication on CONNECT. */
  findValid(username: string): MqttAccountWithReach | undefined {
    const row = this.sql(`SELECT a.*, r.session_scope, r.write_filter, r.read_filter FROM mqtt_accounts a
      LEFT JOIN mqtt_account_reach r ON r.account_id = a.id
      WHERE a.username = ? AND (a.valid_until IS NULL OR a.valid_until > ?)`).get(username, this.now()) as (MqttAccountRow & ReachRow) | undefined
    return row && withReach(row)
  }

  update(projectId: number, id: number, f: MqttAccountChange): MqttAccountRow {
    return this.db.transaction(() => {
      const cur = this.get(projectId, id)
      this.sql('UPDATE mqtt_accounts SET password_hash = ?, rights = ?, description = ?, valid_until = ?, edge = ? WHERE id = ?').run(
        f.password === undefined ? cur.password_hash : hashPassword(f.password),
        f.rights ?? cur.rights, f.description ?? cur.description,
        f.validUntil === undefined ? cur.valid_until : f.validUntil, f.edge === undefined ? cur.edge : (f.edge ? 1 : 0), id)
      if (f.reach) {
        this.sql(`INSERT INTO mqtt_account_reach (account_id, session_scope, write_filter, read_filter) VALUES (?, ?, ?, ?)
          ON CONFLICT (account_id) DO UPDATE SET write_filter = excluded.write_filter, read_filter = excluded.read_filter`)
          .run(id, randomBytes(12).toString('hex'), JSON.stringify(f.reach.write), JSON.stringify(f.reach.read))
      }
      return this.get(projectId, id)
    })()
  }

  delete(projectId: number, id: number): MqttAccountRow {
    const row = this.get(projectId, id)
    this.sql('DELETE FROM mqtt_accounts WHERE id = ?').run(id)
    return row
  }

  setEdge(username: string, edge: boolean): boolean {
    return this.sql('UPDATE mqtt_accounts SET edge = ? WHERE username = ?').run(edge ? 1 : 0, username).changes > 0
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
  validById(): Map<number, ValidAccount> {
    const rows = this.sql(`SELECT a.id, a.valid_until, a.password_hash, a.rights, a.edge, r.write_filter, r.read_filter FROM mqtt_accounts a
      LEFT JOIN mqtt_account_reach r ON r.account_id = a.id WHERE a.valid_until IS NULL OR a.valid_until > ?`).all(this.now()) as (MqttAccountRow & ReachRow)[]
    return new Map(rows.map((r) => [r.id, { validUntil: r.valid_until, grant: grantOf(r) }]))
  }

}
