// CSV answers of GET /v2/datapoint/timeseries (issue 34 item 1): asked for by `format=csv`
// (spec 1 lists `format`, only `csv`; DESIGN.md "format") or by `Accept: text/csv`. The lines
// are the dialect of protocol/csv/write.ts (`datapoint,value,time`, or the aggregate's name
// for sampled reads), produced chunk by chunk with a turn of the event loop between chunks,
// like the JSON answer, so neither the loop nor memory holds a long range.
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { InvalidInputError } from '../core/errors.ts'
import { csvField, csvHeader, csvLines } from '../engine/export/csv.ts'
import type { MeanPoint, Point } from '../engine/store/port.ts'

export const CSV_TYPE = 'text/csv; charset=utf-8'

/**
 * Whether the request asks for CSV: `format=csv`, or an Accept header that ranks `text/csv`
 * above `application/json` (by q, then by order). Any other `format` is refused (400).
 */
export function wantsCsv(format: string | undefined, accept: string | undefined): boolean {
  if (format !== undefined) {
    if (format.toLowerCase() === 'csv') return true
    throw new InvalidInputError(`Unknown format '${format}': only csv is accepted (or leave it out for JSON)`)
  }
  if (!accept || !accept.includes('csv')) return false
  let best: { csv: boolean; q: number } | undefined
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';')
    const csv = type.trim() === 'text/csv'
    if (!csv && type.trim() !== 'application/json' && type.trim() !== '*/*' && type.trim() !== 'application/*') continue
    const q = Number(params.map((x) => x.trim()).find((x) => x.startsWith('q='))?.slice(2) ?? 1)
    if (!(q > 0)) continue
    if (!best || q > best.q) best = { csv, q }
  }
  return best?.csv ?? false
}

/** Lines per slice of a sampled answer between turns of the event loop. */
const SLICE = 4096

/** A raw read as CSV: one chunk of the store at a time (engine/chunked-read.ts). */
export async function* rawCsv(dataPointID: string, chunks: AsyncIterable<Point[]>, convert?: (v: number, t: number) => number): AsyncGenerator<string> {
  const id = csvField(dataPointID)
  const pick = convert ? (p: Point) => convert(p.value, p.time) : (p: Point) => p.value
  yield csvHeader('value')
  for await (const points of chunks) if (points.length > 0) yield csvLines(id, points, pick)
}

/** A sampled read as CSV, in slices; the value column is named after the aggregate. */
export async function* sampleCsv(dataPointID: string, points: readonly MeanPoint[], field: string, convert?: (v: number, t: number) => number): AsyncGenerator<string> {
  const id = csvField(dataPointID)
  const pick = convert ? (p: MeanPoint) => convert(p.mean, p.time) : (p: MeanPoint) => p.mean
  yield csvHeader(field)
  for (let i = 0; i < points.length; i += SLICE) {
    if (i > 0) await yieldToLoop()
    yield csvLines(id, points, pick, i, Math.min(points.length, i + SLICE))
  }
}
