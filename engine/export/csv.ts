// The CSV that Lintel writes (issue 34 item 1: reads and exports as CSV): the spec's preferred
// upload dialect (spec 1 "CSV rules" 1: `,` delimiter, `"` quotes, three columns: datapoint
// identifier, numeric value, timestamp) with a header line the importer recognises
// (protocol/csv/dialect.ts rule 5), so an exported file imports again as it is. Times are
// RFC 3339 UTC (core/timestamp.ts), numbers the shortest text that reads back the same (as
// protocol/decimal.ts encodes them; the engine does not import protocol/). csvBytes turns an
// export's rows into one Buffer per chunk, so the file streams into the document storage.
import { formatTimestamp } from '../../core/timestamp.ts'
import type { Point } from '../store/port.ts'
import type { RowChunk } from './rows.ts'

/** The shortest round-trip text of a number, `-0` kept; a conversion that gave no number (never a stored value) leaves the field empty rather than ending the stream. */
const number = (v: number): string => (Number.isFinite(v) ? (v === 0 && 1 / v < 0 ? '-0' : String(v)) : '')

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

const valueOf = (p: Point) => p.value

/** An export's rows as CSV: the header, then one Buffer per chunk of rows. */
export async function* csvBytes(rows: AsyncIterable<RowChunk>): AsyncGenerator<Buffer> {
  yield Buffer.from(csvHeader('value'))
  let id = ''
  let quoted = ''
  for await (const r of rows) {
    if (r.dataPointID !== id) { id = r.dataPointID; quoted = csvField(id) }
    yield Buffer.from(csvLines(quoted, r.points, valueOf))
  }
}
