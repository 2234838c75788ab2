// Short-lived MQTT broker accounts of a project (spec 1 "MQTT account" and its lifecycle),
// and operator-issued accounts without expiry (valid_until NULL). Usernames are unique
// across the broker; passwords are stored only as scrypt hashes.
//
// Every account carries a reach (issue 9, DESIGN.md "MQTT accounts"), kept in its own table
// mqtt_account_reach: the datapoint filters its creator held for the ingest (write) and read
// endpoints when the account was created or last changed (a snapshot, see
// api/routes/mqtt-accounts.ts), and a random session scope that prefixes the account's
// client ids in the broker. Operator-issued accounts reach all datapoints of their project.
import { randomBytes } from 'node:crypto'
import { statements, type Db } from './db.ts'
import { ConflictError, InvalidInputError, NotFoundError } from '../core/errors.ts'
import { controlCharacterIn, quoteIdentifier } from '../core/identifier.ts'
import { hashPassword } from './passwords.ts'
import type { TagAuth } from './types.ts'

export type MqttRights = 'read' | 'write'

/** Which datapoints of the project an account may touch: all, or those its TagAuths admit. */
export interface DatapointReach { all: boolean; auths: TagAuth[] }

export interface MqttReach { write: DatapointReach; read: DatapointReach }

export const FULL_REACH: MqttReach = { write: { all: true, auths: [] }, read: { all: true, auths: [] } }
const NO_REACH: MqttReach = { write: { all: false, auths: [] }, read: { all: false, auths: [] } }

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

/** An account with what the broker needs to know about it. */
export interface MqttAccountWithReach extends MqttAccountRow {
  reach: MqttReach
  /** Prefix of the account's client ids in the broker; unique, never reused. */
  session_scope: string
}

export interface MqttAccountInput {
  username: string; password: string; rights?: MqttRights; description?: string; validUntil: number | null
  /** Default: the full reach (operator-issued accounts). */
  reach?: MqttReach
}

export interface ReachRow { session_scope: string | null; write_filter: string | null; read_filter: string | null }

/** The account of a row joined with its reach row. */
export function withReach(row: MqttAccountRow & ReachRow): MqttAccountWithReach {
  const { session_scope, write_filter, read_filter, ...account } = row
  // No reach row (written by an older version or another tool): operator-issued accounts
  // keep their full reach, short-lived ones get none.
  const reach = write_filter === null || read_filter === null
    ? (account.valid_until === null ? FULL_REACH : NO_REACH)
    : { write: JSON.parse(write_filter) as DatapointReach, read: JSON.parse(read_filter) as DatapointReach }
  return { ...account, reach, session_scope: session_scope ?? `account-${account.id}` }
}

/**
 * The 400 of a username holding a control character (issue 9 item 9: the rule of datapoint
 * identifiers, core/identifier.ts). Usernames name the account in logs and refusals; a
 * control character there could hide or mimic another account. Both adapters, API and CLI.
 */
export function assertUsername(username: string): void {
  const c = controlCharacterIn(username)
  if (c) throw new InvalidInputError(`Refused: the MQTT username ${quoteIdentifier(username)} contains the control character ${c}`)
}

/** The 409 of an MQTT username in use (both adapters). */
export const usernameTaken = (username: string) => new ConflictError(`An MQTT account with username '${username}' already exists`)

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
      const id = Number(this.sql('INSERT INTO mqtt_accounts (project_id, username, password_hash, rights, description, valid_until) VALUES (?, ?, ?, ?, ?, ?)')
        .run(projectId, a.username, hashPassword(a.password), a.rights ?? 'read', a.description ?? '', a.validUntil).lastInsertRowid)
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

  update(projectId: number, id: number, f: { password?: string; rights?: MqttRights; description?: string; validUntil?: number; reach?: MqttReach }): MqttAccountRow {
    return this.db.transaction(() => {
      const cur = this.get(projectId, id)
      this.sql('UPDATE mqtt_accounts SET password_hash = ?, rights = ?, description = ?, valid_until = ? WHERE id = ?').run(
        f.password === undefined ? cur.password_hash : hashPassword(f.password),
        f.rights ?? cur.rights, f.description ?? cur.description,
        f.validUntil === undefined ? cur.valid_until : f.validUntil, id)
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
