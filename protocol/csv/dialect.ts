// CSV dialect detection from the first chunk of a file (the importer passes ~64 KiB).
//
// Rules (deterministic; documented decisions):
// 1. A UTF-8 byte-order mark is stripped; lines end with \n or \r\n; blank lines are
//    ignored; only complete lines are used (the last partial line is dropped unless the
//    sample is the whole file); at most MAX_SAMPLE_LINES lines.
// 2. Candidates: delimiter `,` `;` tab `|`, quote `"` `'`, the six column orders of
//    (identifier, value, time) and time format ISO or epoch. Each candidate parses the
//    sample lines with exactly the importer's rules (line.ts); its score is the number of
//    lines that give a valid row. The highest score wins; ties go to the earlier candidate
//    in this preference: delimiter , ; tab | (outermost), then quote " ', then time
//    format ISO before epoch (an ISO timestamp is distinctive, an epoch number is not: in
//    `2024-03-31T12:00:00Z,1,2` the first column is the time), then column order
//    id-value-time, id-time-value, time-id-value, time-value-id, value-id-time,
//    value-time-id. The preferred dialect therefore wins every tie, e.g.
//    `1001,23.5,1711888200` (all numeric) reads as identifier, value, epoch time.
//    Without a header, an epoch time column is only told apart from a numeric value column
//    by this preference: put it third, or name the columns in a header.
// 3. No candidate parses any line: the preferred dialect (`,` `"` id,value,time ISO).
// 4. Header: the first non-blank line is a header when, read with the chosen dialect, its
//    value field is not a number and its time field is neither a timestamp nor an epoch
//    number. The header is skipped (it still counts as line 1).
// 5. Header names (case-insensitive, ignoring everything but letters and digits) choose
//    the column order when all three columns are recognised:
//      identifier: id identifier datapoint datapointid datapointname dp dpid name series
//                  seriesid sensor key
//      value:      value val reading measurement
//      time:       time timestamp datetime date ts time(stamp)utc, and as epoch numbers:
//                  epoch unix unixtime unixtimestamp epochtime
//    With an epoch name the time format is epoch; otherwise it is decided from the sample
//    for that column order (epoch when more lines read as epoch than as ISO).

import { parseEpochRange, parseTimestampRange } from '../../core/timestamp.ts'
import { scanDecimal } from '../decimal.ts'
import { type ColumnOrder, type CsvDialect, type Delimiter, LineParser, PREFERRED_DIALECT, type QuoteChar, type TimeFormat } from './line.ts'

export const MAX_SAMPLE_LINES = 200
export const DEFAULT_SAMPLE_BYTES = 64 * 1024

const DELIMITERS: readonly Delimiter[] = [',', ';', '\t', '|']
const QUOTES: readonly QuoteChar[] = ['"', "'"]
export const COLUMN_ORDERS: readonly ColumnOrder[] = [
  { id: 0, value: 1, time: 2 },
  { id: 0, time: 1, value: 2 },
  { time: 0, id: 1, value: 2 },
  { time: 0, value: 1, id: 2 },
  { value: 0, id: 1, time: 2 },
  { value: 0, time: 1, id: 2 },
]
const TIME_FORMATS: readonly TimeFormat[] = ['iso', 'epoch']

const ID_NAMES = new Set(['id', 'identifier', 'datapoint', 'datapointid', 'datapointname', 'dp', 'dpid', 'name', 'series', 'seriesid', 'sensor', 'key'])
const VALUE_NAMES = new Set(['value', 'val', 'reading', 'measurement'])
const TIME_NAMES = new Set(['time', 'timestamp', 'datetime', 'date', 'ts', 'timeutc', 'timestamputc'])
const EPOCH_NAMES = new Set(['epoch', 'unix', 'unixtime', 'unixtimestamp', 'epochtime'])

/** Sample lines: BOM stripped, complete, non-blank, without line terminators. */
export function sampleLines(sample: string, complete: boolean): string[] {
  if (sample.charCodeAt(0) === 0xfeff) sample = sample.slice(1)
  const out: string[] = []
  let p = 0
  while (p < sample.length && out.length < MAX_SAMPLE_LINES) {
    let nl = sample.indexOf('\n', p)
    if (nl < 0) {
      if (!complete) break
      nl = sample.length
    }
    let e = nl
    if (e > p && sample.charCodeAt(e - 1) === 13) e--
    const line = sample.slice(p, e)
    if (line.trim() !== '') out.push(line)
    p = nl + 1
  }
  return out
}

function countRows(p: LineParser, lines: readonly string[]): number {
  let n = 0
  for (let i = 0; i < lines.length; i++) {
    p.reset()
    if (p.parse(lines[i], 0, lines[i].length, i + 1) !== undefined) n++
  }
  return n
}

function normName(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '')
}

/**
 * Detect the dialect from the beginning of a file.
 * @param sample decoded text of the first bytes of the file
 * @param complete true when the sample is the whole file (its last line is complete)
 */
export function detectDialect(sample: string, complete: boolean): CsvDialect {
  const lines = sampleLines(sample, complete)
  if (lines.length === 0) return { ...PREFERRED_DIALECT }
  let best: CsvDialect = { ...PREFERRED_DIALECT }
  let bestScore = 0
  for (const delimiter of DELIMITERS) {
    for (const quote of QUOTES) {
      for (const timeFormat of TIME_FORMATS) {
        for (const columns of COLUMN_ORDERS) {
          const d: CsvDialect = { delimiter, quote, header: false, columns, timeFormat }
          const score = countRows(new LineParser(d), lines)
          if (score > bestScore) { bestScore = score; best = d }
        }
      }
    }
  }
  return withHeader(best, lines)
}

/** Apply rules 4 and 5 (header line and header names) to a chosen dialect. */
function withHeader(d: CsvDialect, lines: readonly string[]): CsvDialect {
  const first = lines[0]
  const p = new LineParser(d)
  const sp = p.splitter
  const n = sp.split(first, 0, first.length)
  const field = (i: number) => sp.fieldText(first, i, n).trim()
  const v = field(d.columns.value)
  const t = field(d.columns.time)
  const isNum = !Number.isNaN(scanDecimal(v, 0, v.length, d.delimiter !== ','))
  const isTime = !Number.isNaN(parseTimestampRange(t, 0, t.length)) || !Number.isNaN(parseEpochRange(t, 0, t.length))
  if (isNum || isTime) return d
  // it is a header; do its names give the column order?
  const names = [0, 1, 2].map(i => normName(field(i)))
  const find = (set: Set<string>) => names.findIndex(x => set.has(x))
  const id = find(ID_NAMES), value = find(VALUE_NAMES)
  const epochCol = find(EPOCH_NAMES)
  const time = epochCol >= 0 ? epochCol : find(TIME_NAMES)
  if (id < 0 || value < 0 || time < 0 || id === value || id === time || value === time) {
    return { ...d, header: true }
  }
  const columns = COLUMN_ORDERS.find(o => o.id === id && o.value === value && o.time === time)!
  let timeFormat: TimeFormat
  if (epochCol >= 0) timeFormat = 'epoch'
  else {
    const rest = lines.slice(1)
    const iso = countRows(new LineParser({ ...d, columns, timeFormat: 'iso' }), rest)
    const ep = countRows(new LineParser({ ...d, columns, timeFormat: 'epoch' }), rest)
    timeFormat = ep > iso ? 'epoch' : 'iso'
  }
  return { ...d, header: true, columns, timeFormat }
}
