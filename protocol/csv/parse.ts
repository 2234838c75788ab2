// Streaming CSV import: bytes in, bounded batches of rows and line errors out.
//
// - Input: any async iterable of Buffer/Uint8Array/string chunks (a request file stream,
//   fs.createReadStream, ...). Bytes are decoded as UTF-8 (StringDecoder: a character split
//   across chunks is joined; invalid bytes become U+FFFD); a leading BOM is dropped.
// - The dialect is detected from the first `sampleBytes` of text (dialect.ts) unless given.
// - Memory: one chunk plus the unfinished last line plus one batch. A line longer than
//   `maxLineLength` characters is cut there: the cut part is parsed as the record and the
//   rest up to the next line break is skipped.
// - Line numbers are physical, 1-based; blank lines (empty or only blanks: space, and tab
//   unless tab is the delimiter) and the header count but yield nothing.
// - Batches hold at most `batchSize` rows + errors and are yielded in file order.
// - With `maxErrors` (e.g. 1 for on_error=abort) reading stops after that many errors;
//   the batch holding the last error is yielded, then the generator ends.
// - Breaking out of `for await` stops reading the input (the iterator's return() is called).

import { StringDecoder } from 'node:string_decoder'
import { DEFAULT_SAMPLE_BYTES, detectDialect } from './dialect.ts'
import { type CsvDialect, type CsvRow, LineParser } from './line.ts'

export type { CsvDialect, CsvRow } from './line.ts'
export * from './errors.ts'

export interface CsvLineError { line_no: number; error: string }
export interface CsvBatch { rows: CsvRow[]; errors: CsvLineError[] }

export interface CsvProgress {
  /** Input bytes (or string characters) received so far. */
  bytes: number
  /** Physical lines processed so far. */
  lines: number
  rows: number
  errors: number
  done: boolean
}

export interface ParseCsvOptions {
  /** Max rows + errors per batch. Default 10,000. */
  batchSize?: number
  /** Skip detection and use this dialect. */
  dialect?: CsvDialect
  /** Called once with the dialect in use, before the first batch. */
  onDialect?: (d: CsvDialect) => void
  /** Called every `progressLines` lines and once at the end with done = true. */
  onProgress?: (p: CsvProgress) => void
  /** Default 1,000,000. */
  progressLines?: number
  /** Stop after this many line errors. Default: no limit. */
  maxErrors?: number
  /** Characters of text used for dialect detection. Default 64 Ki. */
  sampleBytes?: number
  /** Longest line kept whole, in characters (and bytes while waiting for a line break). Default 1 Mi. */
  maxLineLength?: number
}

export const DEFAULT_BATCH_SIZE = 10_000

/** The line loop: owns the text buffer, the line counter and the batch being filled. */
class LineProcessor {
  private buf = ''
  private pos = 0
  private skipping = false
  private headerPending: boolean
  lines = 0
  rows = 0
  errors = 0
  bytes = 0
  batch: CsvBatch = { rows: [], errors: [] }
  private nextProgress: number

  constructor(private readonly parser: LineParser, private readonly o: Required<Pick<ParseCsvOptions,
    'batchSize' | 'progressLines' | 'maxErrors' | 'maxLineLength'>> & ParseCsvOptions) {
    this.headerPending = parser.dialect.header
    this.nextProgress = o.progressLines
  }

  get stopped(): boolean { return this.errors >= this.o.maxErrors }

  feed(text: string): void {
    this.buf = this.pos < this.buf.length ? this.buf.slice(this.pos) + text : text
    this.pos = 0
    this.parser.reset()
  }

  /**
   * Process complete lines (all lines when `final`) until the batch is full, the buffer
   * is used up or maxErrors is reached. True when the batch should be yielded now.
   */
  run(final: boolean): boolean {
    const buf = this.buf
    const parser = this.parser
    const limit = this.o.batchSize
    const rows = this.batch.rows
    const errors = this.batch.errors
    let pos = this.pos
    let line = this.lines
    const len = buf.length
    const maxLen = this.o.maxLineLength
    const tabIsBlank = parser.dialect.delimiter !== '\t'
    while (pos < len) {
      let nl = buf.indexOf('\n', pos)
      if (this.skipping) { // the rest of an over-long line
        if (nl < 0) { pos = len; break }
        this.skipping = false
        pos = nl + 1
        continue
      }
      let next: number
      if (nl < 0) {
        if (final) { nl = next = len } else if (len - pos > maxLen) {
          nl = pos + maxLen
          next = len
          this.skipping = true
        } else break
      } else {
        next = nl + 1
        if (nl - pos > maxLen) nl = pos + maxLen
      }
      line++
      let le = nl
      if (le > pos && buf.charCodeAt(le - 1) === 13) le--
      // blank line?
      let c = buf.charCodeAt(pos)
      if (c === 32 || (c === 9 && tabIsBlank) || le === pos) {
        let p = pos
        while (p < le && (c === 32 || (c === 9 && tabIsBlank))) c = buf.charCodeAt(++p)
        if (p === le) { pos = next; continue }
      }
      if (this.headerPending) { this.headerPending = false; pos = next; continue }
      const row = parser.parse(buf, pos, le, line)
      pos = next
      if (row !== undefined) { rows.push(row); this.rows++ } else {
        errors.push({ line_no: line, error: parser.error })
        this.errors++
        if (this.errors >= this.o.maxErrors) { this.lines = line; this.buf = ''; this.pos = 0; return true }
      }
      if (line >= this.nextProgress) {
        this.lines = line
        this.nextProgress = line + this.o.progressLines
        this.progress(false)
      }
      if (rows.length + errors.length >= limit) { this.pos = pos; this.lines = line; return true }
    }
    this.pos = pos
    this.lines = line
    return false
  }

  takeBatch(): CsvBatch {
    const b = this.batch
    this.batch = { rows: [], errors: [] }
    return b
  }

  progress(done: boolean): void {
    this.o.onProgress?.({ bytes: this.bytes, lines: this.lines, rows: this.rows, errors: this.errors, done })
  }
}

/**
 * Parse a CSV time-series file as a stream of batches.
 * Rows carry the identifier, the time (µs since the epoch, UTC), the value and the
 * physical line number; errors carry `line_no` and one of the texts of errors.ts.
 */
export async function* parseCsvStream(
  input: AsyncIterable<Buffer | Uint8Array | string> | Iterable<Buffer | Uint8Array | string>,
  opts: ParseCsvOptions = {},
): AsyncGenerator<CsvBatch, CsvProgress, undefined> {
  const o = {
    ...opts,
    batchSize: Math.max(1, opts.batchSize ?? DEFAULT_BATCH_SIZE),
    progressLines: Math.max(1, opts.progressLines ?? 1_000_000),
    maxErrors: opts.maxErrors ?? Infinity,
    maxLineLength: Math.max(1, opts.maxLineLength ?? 1 << 20),
  }
  const sampleBytes = opts.sampleBytes ?? DEFAULT_SAMPLE_BYTES
  const decoder = new StringDecoder('utf8')
  let proc: LineProcessor | undefined
  let sample = ''
  let started = false // BOM check done
  let bytes = 0

  const start = (complete: boolean): LineProcessor => {
    const dialect = opts.dialect ?? detectDialect(sample, complete)
    opts.onDialect?.(dialect)
    const p = new LineProcessor(new LineParser(dialect), o)
    p.bytes = bytes
    p.feed(sample)
    sample = ''
    return p
  }

  // Bytes after the last line break of the previous chunk. Decoding only up to a line
  // break hands the line loop a text that starts and ends at line boundaries, so it is a
  // flat string (no concatenation per chunk; character access on it is fastest).
  let carry: Buffer | undefined
  for await (const chunk of input) {
    let text: string
    if (typeof chunk === 'string') { text = chunk; bytes += chunk.length } else {
      bytes += chunk.byteLength
      let b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
      if (carry !== undefined) { b = Buffer.concat([carry, b]); carry = undefined }
      const nl = b.lastIndexOf(10)
      if (nl < 0 && b.length <= o.maxLineLength) { carry = b; continue }
      if (nl >= 0 && nl + 1 < b.length) { carry = b.subarray(nl + 1); b = b.subarray(0, nl + 1) }
      text = decoder.write(b)
    }
    if (!started && text.length > 0) {
      started = true
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
    }
    if (proc === undefined) {
      sample += text
      if (sample.length < sampleBytes) continue
      proc = start(false)
    } else {
      proc.bytes = bytes
      proc.feed(text)
    }
    while (proc.run(false)) {
      yield proc.takeBatch()
      if (proc.stopped) { proc.progress(true); return summary(proc) }
    }
  }
  const tail = (carry !== undefined ? decoder.write(carry) : '') + decoder.end()
  if (proc === undefined) {
    sample += (!started && tail.charCodeAt(0) === 0xfeff) ? tail.slice(1) : tail
    proc = start(true)
  } else proc.feed(tail)
  proc.bytes = bytes
  while (proc.run(true)) {
    yield proc.takeBatch()
    if (proc.stopped) break
  }
  const last = proc.takeBatch()
  if (last.rows.length + last.errors.length > 0) yield last
  proc.progress(true)
  return summary(proc)
}

function summary(p: LineProcessor): CsvProgress {
  return { bytes: p.bytes, lines: p.lines, rows: p.rows, errors: p.errors, done: true }
}
