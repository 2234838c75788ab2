// Authentication of MQTT clients against the project's broker accounts (spec 3
// "Authentication"). A verified username/password pair is cached (bounded LRU) so that a
// reconnect storm does not pay one scrypt hash per CONNECT; the entry is bound to the stored
// hash, so a changed password or a deleted account stops matching at once.
//
// Unknown usernames cost what known ones cost (issue 9, item 6): the password is checked
// against a dummy hash with the same parameters, so timing does not tell which usernames
// exist. Throttling of failed logins is the broker's (broker.ts), around this check.
import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Catalog } from '../../catalog/index.ts'
import type { MqttReach, MqttRights } from '../../catalog/mqtt-accounts.ts'
import { hashPassword, verifyPassword } from '../../catalog/passwords.ts'

/** What the broker knows about an authenticated connection. */
export interface MqttSession {
  accountId: number
  username: string
  projectId: number
  group: string
  handle: string
  hashIdLength: number
  rights: MqttRights
  /** ms since the epoch; null = no expiry */
  validUntil: number | null
  /** The datapoints the account may write and read (its creator's reach). */
  reach: MqttReach
  /** Prefix of the account's client ids: a client id is the account's, never global. */
  sessionScope: string
  /** Designated edge agent at login (its reports are taken: SPTACK, APPSTATE, APPLOG, APPSYNC).
   *  Part of the grant fingerprint: a change ends the connection within the broker's tick. */
  edge: boolean
  /** The account's grant fingerprint at login: a change anywhere in a cluster ends the connection. */
  grant: string
  /** The client id the device sent (the broker keys the connection by the scoped one). */
  clientId: string
}

export class MqttAuthenticator {
  private readonly cache = new LRUCache<string, { accountId: number; hash: string }>({ max: 10_000, ttl: 5 * 60_000 })
  private dummyHash: string | undefined

  constructor (private readonly catalog: Catalog) {}

  async authenticate(username: string | undefined, password: Buffer | undefined): Promise<Omit<MqttSession, 'clientId'> | undefined> {
    if (!username || !password) return undefined
    const account = await this.catalog.mqttAccounts.findValid(username)
    if (!account) {
      // Same work as a wrong password of a known account.
      await verifyPassword(password.toString('utf8'), this.dummyHash ??= hashPassword('lintel-dummy-password'))
      return undefined
    }
    const key = createHash('sha256').update(username).update('\0').update(password).digest('base64')
    const hit = this.cache.get(key)
    if (!(hit && hit.accountId === account.id && hit.hash === account.password_hash)) {
      if (!await verifyPassword(password.toString('utf8'), account.password_hash)) return undefined
      this.cache.set(key, { accountId: account.id, hash: account.password_hash })
    }
    const p = await this.catalog.projects.settings(account.project_id)
    return {
      accountId: account.id, username, projectId: p.id, group: p.load_balancing_group, handle: p.project_handle,
      hashIdLength: p.hash_id_length, rights: account.rights, validUntil: account.valid_until,
      reach: account.reach, sessionScope: account.session_scope, edge: account.edge === 1, grant: account.grant,
    }
  }
}
