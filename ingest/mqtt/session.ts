// Authentication of MQTT clients against the project's broker accounts (spec 3
// "Authentication"). A verified username/password pair is cached (bounded LRU) so that a
// reconnect storm does not pay one scrypt hash per CONNECT; the entry is bound to the stored
// hash, so a changed password or a deleted account stops matching at once.
import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { Catalog } from '../../catalog/index.ts'
import type { MqttRights } from '../../catalog/mqtt-accounts.ts'
import { verifyPassword } from '../../catalog/passwords.ts'

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
}

export class MqttAuthenticator {
  private readonly cache = new LRUCache<string, { accountId: number; hash: string }>({ max: 10_000, ttl: 5 * 60_000 })

  constructor (private readonly catalog: Catalog) {}

  async authenticate(username: string | undefined, password: Buffer | undefined): Promise<MqttSession | undefined> {
    if (!username || !password) return undefined
    const account = this.catalog.mqttAccounts.findValid(username)
    if (!account) return undefined
    const key = createHash('sha256').update(username).update('\0').update(password).digest('base64')
    const hit = this.cache.get(key)
    if (!(hit && hit.accountId === account.id && hit.hash === account.password_hash)) {
      if (!await verifyPassword(password.toString('utf8'), account.password_hash)) return undefined
      this.cache.set(key, { accountId: account.id, hash: account.password_hash })
    }
    const p = this.catalog.projects.settings(account.project_id)
    return {
      accountId: account.id, username, projectId: p.id, group: p.load_balancing_group, handle: p.project_handle,
      hashIdLength: p.hash_id_length, rights: account.rights, validUntil: account.valid_until,
    }
  }
}
