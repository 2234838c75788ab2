// Currency conversion of read values (spec 1, "Time-series data": `currency_system`; issue 15).
// The datapoint's `currency` tag names the source currency, `currency_system` the target
// (ISO 4217 codes such as EUR, USD, CHF). Exchange rates are set by the operator with a
// validity start (`npx lintel currency set EUR USD 1.08 --from 2026-01-01`, kept in the
// catalog); each observation is converted at the rate valid at its own time: the latest rate
// of the pair whose validity starts at or before it. Without a rate for the pair, the inverse
// pair's rates are used inverted. A pair without any rate, or an observation older than the
// pair's first rate, is a 400 that names the pair. Pure: the rates come from the caller.
import { InvalidInputError } from '../core/errors.ts'

/** One exchange rate: 1 unit of the base currency is `rate` units of the quote currency. */
export interface Rate { validFrom: number; rate: number }
/** The rates of a pair in ascending `validFrom` (microseconds), empty when none are set. */
export type RateLookup = (base: string, quote: string) => Rate[]

/** An ISO 4217 code in upper case, or a 400 naming what was given. */
export function currencyCode(text: string, what: string): string {
  const code = text.trim().toUpperCase()
  if (!/^[A-Z]{3}$/.test(code)) throw new InvalidInputError(`Invalid ${what} '${text}': use a three-letter ISO 4217 code such as EUR or USD`)
  return code
}

const iso = (us: number) => new Date(Math.floor(us / 1000)).toISOString().replace('.000Z', 'Z')

/** Converter of the values of a datapoint into `target`, by observation time; undefined when already in it. */
export function currencyConverter(dataPointID: string, tags: Record<string, string>, target: string, rates: RateLookup):
  { convert: (value: number, time: number) => number; currency: string } | undefined {
  const quote = currencyCode(target, 'currency_system')
  const tag = tags.currency
  if (tag === undefined) throw new InvalidInputError(`Datapoint '${dataPointID}' has no currency tag: its values cannot be converted to ${quote}`)
  const base = currencyCode(tag, `currency tag of datapoint '${dataPointID}':`)
  if (base === quote) return undefined
  const pair = `${base}→${quote}`
  const direct = rates(base, quote)
  const table = direct.length > 0 ? direct : rates(quote, base).map((r) => ({ validFrom: r.validFrom, rate: 1 / r.rate }))
  const hint = `set one with 'npx lintel currency set ${base} ${quote} <rate> --from <date>'`
  if (table.length === 0) throw new InvalidInputError(`No exchange rate ${pair} is set: ${hint}`)
  const convert = (value: number, time: number): number => {
    // The last rate whose validity starts at or before `time` (binary search).
    let lo = 0
    let hi = table.length - 1
    if (time < table[0].validFrom) {
      throw new InvalidInputError(`No exchange rate ${pair} valid at ${iso(time)} (the first is valid from ${iso(table[0].validFrom)}): ${hint}`)
    }
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (table[mid].validFrom <= time) lo = mid
      else hi = mid - 1
    }
    // 12 significant digits, as unit conversion: no 108.00000000000001.
    return Number((value * table[lo].rate).toPrecision(12))
  }
  return { convert, currency: quote }
}
