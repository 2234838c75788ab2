// The CSV that Lintel writes (issue 34 item 1: reads and exports as CSV): the spec's preferred
// upload dialect (spec 1 "CSV rules" 1: `,` delimiter, `"` quotes, three columns: datapoint
// identifier, numeric value, timestamp) with a header line the importer recognises
// (protocol/csv/dialect.ts rule 5), so an exported file imports again as it is. Times are
// RFC 3339 UTC (core/timestamp.ts), numbers the shortest text that reads back the same
// (protocol/decimal.ts). Pure: the callers stream what these functions return.
import { formatTimestamp } from '../../core/timestamp.ts'
import { encodeDecimal } from '../decimal.ts'

/** A conversion that gave no number (never a stored value) leaves the field empty rather than ending the stream. */
const number = (v: number): string => (Number.isFinite(v) ? encodeDecimal(v) : '')

/** The header line: `datapoint,<field>,time` (`value` for raw rows, the aggregate's name for samples). */
export const csvHeader = (field = 'value'): string => `datapoint,${field},time\r\n`

/** A field quoted per RFC 4180 when it holds a delimiter, a quote or a line break (identifiers may). */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? '"' + text.replaceAll('"', '""') + '"' : text
}

/**
 * The lines of points [from, to), each `<id>,<value>,<time>` and CRLF (RFC 4180); `value(p)`
 * gives each point's number (a converted value, a bucket's aggregate). `id` is the identifier
 * as csvField gives it (quoted once per series, not per line).
 */
export function csvLines<P extends { time: number }>(id: string, points: readonly P[], value: (p: P) => number, from = 0, to = points.length): string {
  let out = ''
  for (let i = from; i < to; i++) out += id + ',' + number(value(points[i])) + ',' + formatTimestamp(points[i].time) + '\r\n'
  return out
}
