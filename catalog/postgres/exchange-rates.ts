// The PostgreSQL repository of exchange rates (catalog/exchange-rates.ts). Same behaviour as
// catalog/sqlite/exchange-rates.ts (the contract suite holds both).
import type { ExchangeRate } from '../exchange-rates.ts'
import type { ExchangeRatesPort } from '../port.ts'
import type { Sql } from './sql.ts'

export function exchangeRates(sql: Sql): ExchangeRatesPort {
  return {
    set: async (r: ExchangeRate) => {
      await sql.run('INSERT INTO exchange_rates (base, quote, valid_from, rate) VALUES (?, ?, ?, ?) ON CONFLICT (base, quote, valid_from) DO UPDATE SET rate = excluded.rate',
        r.base, r.quote, r.validFrom, r.rate)
    },
    delete: async (base, quote, validFrom) => (await sql.run('DELETE FROM exchange_rates WHERE base = ? AND quote = ? AND valid_from = ?', base, quote, validFrom)) > 0,
    ofPair: (base, quote) => sql.rows('SELECT valid_from AS "validFrom", rate FROM exchange_rates WHERE base = ? AND quote = ? ORDER BY valid_from', base, quote),
    list: () => sql.rows<ExchangeRate>('SELECT base, quote, valid_from AS "validFrom", rate FROM exchange_rates ORDER BY base COLLATE "C", quote COLLATE "C", valid_from'),
  }
}
