// The SQLite repository of catalog/exchange-rates.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/exchange-rates.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import type { ExchangeRate } from '../exchange-rates.ts'

export class ExchangeRates {
  private readonly sql: ReturnType<typeof statements>

  constructor (db: Db) {
    this.sql = statements(db)
  }

  /** Sets (or replaces) the rate of base→quote valid from `validFrom` (microseconds). */
  set(r: ExchangeRate): void {
    this.sql('INSERT INTO exchange_rates (base, quote, valid_from, rate) VALUES (?, ?, ?, ?) ON CONFLICT (base, quote, valid_from) DO UPDATE SET rate = excluded.rate')
      .run(r.base, r.quote, r.validFrom, r.rate)
  }

  /** Removes one rate; false when there was none. */
  delete(base: string, quote: string, validFrom: number): boolean {
    return this.sql('DELETE FROM exchange_rates WHERE base = ? AND quote = ? AND valid_from = ?').run(base, quote, validFrom).changes > 0
  }

  /** The rates of a pair in ascending validity start. */
  ofPair(base: string, quote: string): { validFrom: number; rate: number }[] {
    return this.sql('SELECT valid_from AS validFrom, rate FROM exchange_rates WHERE base = ? AND quote = ? ORDER BY valid_from').all(base, quote) as { validFrom: number; rate: number }[]
  }

  list(): ExchangeRate[] {
    return this.sql('SELECT base, quote, valid_from AS validFrom, rate FROM exchange_rates ORDER BY base, quote, valid_from').all() as ExchangeRate[]
  }
}
