// The SQLite repository of catalog/tokens.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/tokens.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { randomBytes } from 'node:crypto'
import { statements, type Db } from './db.ts'
import { type IssuedToken, digest } from '../tokens.ts'

export class Tokens {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db, private readonly now: () => number = Date.now) {
    this.sql = statements(db)
  }

  issue(userId: number, ttlSeconds: number): IssuedToken {
    const token = 'lt_' + randomBytes(32).toString('base64url')
    const expiresAt = this.now() + ttlSeconds * 1000
    this.sql('DELETE FROM tokens WHERE expires_at <= ?').run(this.now())
    this.sql('INSERT INTO tokens (token_hash, user_id, expires_at) VALUES (?, ?, ?)').run(digest(token), userId, expiresAt)
    return { access_token: token, token_type: 'Bearer', expires_in: ttlSeconds, expires_at: new Date(expiresAt).toISOString() }
  }

  /** The user id of a valid, unexpired token. */
  verify(token: string): number | undefined {
    const row = this.sql('SELECT user_id, expires_at FROM tokens WHERE token_hash = ?').get(digest(token)) as { user_id: number; expires_at: number } | undefined
    if (!row || row.expires_at <= this.now()) return undefined
    return row.user_id
  }

  /** Tokens stored for the user (expired ones not yet swept included). */
  countOfUser(userId: number): number {
    return this.sql('SELECT count(*) FROM tokens WHERE user_id = ?').pluck().get(userId) as number
  }

  revoke(token: string): boolean {
    return this.sql('DELETE FROM tokens WHERE token_hash = ?').run(digest(token)).changes > 0
  }
}
