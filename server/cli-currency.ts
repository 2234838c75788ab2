// `npx lintel currency ...`: the operator's exchange rates of currency conversion (spec 1,
// `currency_system`; issue 15). A rate holds from its validity start until the pair's next
// one; reads convert each observation at the rate valid at its time (engine/currency.ts).
//   currency set BASE QUOTE RATE --from DATE     1 BASE = RATE QUOTE from DATE (replaces one at the same DATE)
//   currency list
//   currency delete BASE QUOTE --from DATE
import type { Catalog } from '../catalog/index.ts'
import { currencyCode } from '../engine/currency.ts'
import { formatTimestamp, parseTimestamp } from '../core/timestamp.ts'

export const CURRENCY_USAGE = `  currency set BASE QUOTE RATE --from DATE
      An exchange rate for currency_system: 1 BASE is RATE QUOTE (ISO 4217 codes) from DATE
      (RFC 3339 or YYYY-MM-DD, UTC) until the pair's next rate.
  currency list
  currency delete BASE QUOTE --from DATE
`

export async function runCurrency(catalog: Catalog, args: string[], from: string | undefined, out: (s: string) => void, fail: (message: string) => Error): Promise<number> {
  const rates = catalog.exchangeRates
  const [verb, ...rest] = args
  const code = (text: string | undefined, what: string) => {
    if (text === undefined) throw fail(`${what} is required for 'currency ${verb}'`)
    try { return currencyCode(text, what) } catch (err) { throw fail((err as Error).message) }
  }
  const validFrom = () => {
    if (from === undefined) throw fail(`--from is required for 'currency ${verb}' (the start of the rate's validity, e.g. 2026-01-01)`)
    const t = parseTimestamp(from)
    if (t === undefined) throw fail(`--from must be a date or an RFC 3339 timestamp, got '${from}'`)
    return t
  }
  switch (verb) {
    case 'set': {
      const [base, quote, rateText] = [code(rest[0], 'BASE'), code(rest[1], 'QUOTE'), rest[2]]
      const rate = Number(rateText)
      if (rateText === undefined || !/^\d+(\.\d+)?([eE][-+]?\d+)?$/.test(rateText) || !(rate > 0) || !Number.isFinite(rate)) throw fail(`RATE must be a positive number, got '${rateText ?? ''}'`)
      if (base === quote) throw fail(`BASE and QUOTE must differ, got ${base} twice`)
      const t = validFrom()
      await rates.set({ base, quote, validFrom: t, rate })
      out(`exchange rate ${base}→${quote} ${rate} valid from ${formatTimestamp(t)}\n`)
      return 0
    }
    case 'list':
      for (const r of await rates.list()) out(`${r.base}\t${r.quote}\t${r.rate}\t${formatTimestamp(r.validFrom)}\n`)
      return 0
    case 'delete': {
      const [base, quote] = [code(rest[0], 'BASE'), code(rest[1], 'QUOTE')]
      const t = validFrom()
      if (!await rates.delete(base, quote, t)) throw fail(`no exchange rate ${base}→${quote} valid from ${formatTimestamp(t)}`)
      out(`deleted exchange rate ${base}→${quote} valid from ${formatTimestamp(t)}\n`)
      return 0
    }
    default:
      throw fail(`unknown command 'currency ${verb ?? ''}': use currency set, list or delete`)
  }
}
