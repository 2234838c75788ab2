// The PostgreSQL adapter's way to run SQL (node-postgres): `?` placeholders as in the SQLite
// repositories (numbered here), bigint and numeric results as JS numbers (ids, counts and µs
// times all stay below 2^53), and `atomic` units of work: a transaction on a connection of
// the pool, or a SAVEPOINT when the connection is already inside one.
import pg from 'pg'

/** int8 (counts, BIGINT ids and times) and numeric (sums) as numbers, for this adapter only. */
export const types = {
  getTypeParser(oid: number, format?: any) {
    if (oid === 20 || oid === 1700) return (v: string) => Number(v)
    return pg.types.getTypeParser(oid, format)
  },
}

/** `?` → `$1, $2, …`, outside quoted text. */
export function numbered(text: string): string {
  let n = 0
  return text.replace(/'(?:[^']|'')*'|\?/g, (m) => (m === '?' ? `$${++n}` : m))
}

export interface Sql {
  rows<T>(text: string, ...params: unknown[]): Promise<T[]>
  one<T>(text: string, ...params: unknown[]): Promise<T | undefined>
  /** The first column of the first row. */
  value<T>(text: string, ...params: unknown[]): Promise<T | undefined>
  /** Rows changed. */
  run(text: string, ...params: unknown[]): Promise<number>
  /** fn's statements as one unit: all or none. */
  atomic<T>(fn: (sql: Sql) => Promise<T>): Promise<T>
}

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>

abstract class Base implements Sql {
  protected abstract on(): Queryable

  async rows<T>(text: string, ...params: unknown[]): Promise<T[]> {
    return (await this.on().query({ text: numbered(text), values: params })).rows as T[]
  }

  async one<T>(text: string, ...params: unknown[]): Promise<T | undefined> {
    return (await this.rows<T>(text, ...params))[0]
  }

  async value<T>(text: string, ...params: unknown[]): Promise<T | undefined> {
    const r = await this.on().query({ text: numbered(text), values: params, rowMode: 'array' })
    return r.rows[0]?.[0] as T | undefined
  }

  async run(text: string, ...params: unknown[]): Promise<number> {
    return (await this.on().query({ text: numbered(text), values: params })).rowCount ?? 0
  }

  abstract atomic<T>(fn: (sql: Sql) => Promise<T>): Promise<T>
}

/** Statements on any free connection of the pool; `atomic` takes one for a transaction. */
export class PoolSql extends Base {
  constructor (readonly pool: pg.Pool) { super() }

  protected on(): Queryable { return this.pool }

  async atomic<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    const client = await this.pool.connect()
    let broken = false
    try {
      await client.query('BEGIN')
      const tx = new ClientSql(client, 1)
      try {
        const result = await fn(tx)
        await client.query('COMMIT')
        return result
      } catch (err) {
        await client.query('ROLLBACK').catch(() => { broken = true })
        throw err
      } finally {
        tx.end()
      }
    } finally {
      client.release(broken)
    }
  }
}

/** Statements on one connection inside its open transaction; dead once that ended. */
export class ClientSql extends Base {
  private ended = false

  constructor (private readonly client: pg.PoolClient, private readonly depth: number) { super() }

  end(): void { this.ended = true }

  get live(): boolean { return !this.ended }

  protected on(): Queryable {
    if (this.ended) throw new Error('Catalog transaction already ended: its tx cannot be used any more')
    return this.client
  }

  async atomic<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    const name = `lintel_sp${this.depth}`
    await this.on().query(`SAVEPOINT ${name}`)
    const inner = new ClientSql(this.client, this.depth + 1)
    try {
      const result = await fn(inner)
      await this.client.query(`RELEASE SAVEPOINT ${name}`)
      return result
    } catch (err) {
      await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`)
      await this.client.query(`RELEASE SAVEPOINT ${name}`)
      throw err
    } finally {
      inner.end()
    }
  }
}
