// Short-lived MQTT broker accounts of a project (spec 1 "MQTT account" and its lifecycle),
// and operator-issued accounts without expiry (valid_until NULL). Usernames are unique
// across the broker; passwords are stored only as scrypt hashes.
//
// Every account carries a reach (issue 9, DESIGN.md "MQTT accounts"), kept in its own table
// mqtt_account_reach: the datapoint filters its creator held for the ingest (write) and read
// endpoints when the account was created or last changed (a snapshot, see
// api/routes/mqtt-accounts.ts), and a random session scope that prefixes the account's
// client ids in the broker. Operator-issued accounts reach all datapoints of their project.
import { ConflictError, InvalidInputError } from '../core/errors.ts'
import { controlCharacterIn, quoteIdentifier } from '../core/identifier.ts'
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
  /** 1 when the project designates the account as its edge agent: only such accounts may
   *  answer setpoints (SPTACK; issue 29 item 3). 0 or 1, as every flag of both adapters. */
  edge: number
}

/** An account with what the broker needs to know about it. */
export interface MqttAccountWithReach extends MqttAccountRow {
  reach: MqttReach
  /** Prefix of the account's client ids in the broker; unique, never reused. */
  session_scope: string
  /** The grant fingerprint (grantOf): the broker ends a connection whose account's changed. */
  grant: string
}

export interface MqttAccountInput {
  username: string; password: string; rights?: MqttRights; description?: string; validUntil: number | null
  /** Designated edge agent (default false). */
  edge?: boolean
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
  return { ...account, reach, session_scope: session_scope ?? `account-${account.id}`, grant: grantOf(row) }
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

/** The fields an update may change (both adapters). */
export interface MqttAccountChange { password?: string; rights?: MqttRights; description?: string; validUntil?: number; reach?: MqttReach; edge?: boolean }

/** A valid account as the broker's periodic check sees it (both adapters). */
export interface ValidAccount {
  validUntil: number | null
  /** What a connection was granted with: password hash, rights, edge flag and reach. A
   *  change on any node of a cluster shows here, so every node ends the connections that
   *  logged in under the old grant (issue 29: only the changing node did). */
  grant: string
}

/** The grant fingerprint of an account row with its reach columns (both adapters). */
export const grantOf = (r: { password_hash: string; rights: string; edge: number | boolean; write_filter?: string | null; read_filter?: string | null }): string =>
  JSON.stringify([r.password_hash, r.rights, Number(r.edge), r.write_filter ?? null, r.read_filter ?? null])

/** The 409 of an MQTT username in use (both adapters). */
export const usernameTaken = (username: string) => new ConflictError(`An MQTT account with username '${username}' already exists`)
