// One CSV import (POST /v2/project/{project_id}/importTimeseries, spec 1 rules 3-6), from the
// uploaded stream to the store, in bounded memory.
//   continue: one streaming pass; each batch of valid rows is stored as it comes; line
//             errors (and rows of datapoints the caller may not write) are listed.
//   abort:    nothing from the file may be stored if any line is bad, so the upload is
//             spooled to a temporary file while a first pass checks every line (and write
//             access); only if all are good does a second pass over the file store them.
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { InvalidInputError, TooLargeError } from '../core/errors.ts'
import { lineErrorMessage, parseCsvStream, type CsvDialect, type CsvLineError, type CsvProgress } from '../protocol/csv/parse.ts'
import type { ImportWriter } from './import-writer.ts'

export const MAX_LISTED_ERRORS = 10_000

export interface ImportResult {
  total_lines_success: number
  total_lines_error: number
  errors: CsvLineError[]
  errors_truncated?: boolean
  project_id: number
}

/** The part of a pino logger an import uses. */
export interface ProgressLog { info(obj: object, msg: string): void }

/** Where an import stands after a stored batch (the streamed progress of api/import-progress.ts). */
export interface ImportProgress {
  phase: 'store'
  /** Lines handed to the store so far (durable once the answer comes). */
  total_lines_success: number
  total_lines_error: number
  /** The lines to store, when known (on_error=abort: counted by the check pass). */
  lines_total?: number
}

export interface ImportJob {
  projectId: number
  /** Told after every stored batch. */
  progress?: (p: ImportProgress) => void
  input: AsyncIterable<Buffer>
  /** A fresh writer for one pass over the file (ids and access cached for the import). */
  writer: () => ImportWriter
  log: ProgressLog
  spoolDir?: string
}

/** Rows per parsed batch: large enough that a store commit carries many rows per series. */
const BATCH = 50_000

function progressLogger(log: ProgressLog, phase: string) {
  const started = Date.now()
  return (p: CsvProgress) => {
    const s = (Date.now() - started) / 1000
    log.info({ phase, lines: p.lines, rows: p.rows, errors: p.errors, mbytes: Math.round(p.bytes / 1e5) / 10, rows_per_s: Math.round(p.rows / Math.max(s, 0.001)), done: p.done }, 'csv import progress')
  }
}

export async function importContinue(job: ImportJob): Promise<ImportResult> {
  const result: ImportResult = { total_lines_success: 0, total_lines_error: 0, errors: [], project_id: job.projectId }
  const list = (errs: CsvLineError[]) => {
    result.total_lines_error += errs.length
    for (const e of errs) {
      if (result.errors.length < MAX_LISTED_ERRORS) result.errors.push(e)
      else result.errors_truncated = true
    }
  }
  const writer = job.writer()
  for await (const batch of parseCsvStream(job.input, { batchSize: BATCH, onProgress: progressLogger(job.log, 'store') })) {
    let written
    try {
      written = await writer.write(batch.rows)
    } catch (err) {
      // The datapoint quota ends the import (413); say how far it got.
      if (err instanceof TooLargeError) throw new TooLargeError(`${err.message}. The import stopped; ${result.total_lines_success} line(s) before line ${batch.rows[0]?.line ?? '?'} were stored`)
      throw err
    }
    const { stored, errors } = written
    result.total_lines_success += stored
    // Parser errors and access errors of one batch, in line order.
    list(errors.length === 0 ? batch.errors : [...batch.errors, ...errors].sort((a, b) => a.line_no - b.line_no))
    job.progress?.({ phase: 'store', total_lines_success: result.total_lines_success, total_lines_error: result.total_lines_error })
  }
  await writer.flush()
  return result
}

export async function importAbort(job: ImportJob): Promise<ImportResult> {
  const dir = await mkdtemp(join(job.spoolDir ?? tmpdir(), 'lintel-import-'))
  const spool = join(dir, 'upload.csv')
  try {
    // Pass 1: spool and check every line; the first bad one ends the import.
    const out = createWriteStream(spool)
    let dialect: CsvDialect | undefined
    let lines = 0
    async function* tee(): AsyncGenerator<Buffer> {
      for await (const chunk of job.input) {
        if (!out.write(chunk)) await once(out, 'drain')
        yield chunk
      }
    }
    try {
      const check = job.writer()
      for await (const batch of parseCsvStream(tee(), { batchSize: BATCH, maxErrors: 1, onDialect: (d) => { dialect = d }, onProgress: progressLogger(job.log, 'check') })) {
        const first = [...batch.errors, ...(await check.accessErrors(batch.rows))].sort((a, b) => a.line_no - b.line_no)[0]
        if (first) throw new InvalidInputError(lineErrorMessage(first.line_no, first.error))
        lines += batch.rows.length
      }
    } finally {
      out.end()
      await once(out, 'close')
    }
    // Pass 2: every line is good; store them.
    let stored = 0
    const writer = job.writer()
    const progress = () => job.progress?.({ phase: 'store', total_lines_success: stored, total_lines_error: 0, lines_total: lines })
    progress()
    for await (const batch of parseCsvStream(createReadStream(spool, { highWaterMark: 1 << 20 }), { batchSize: BATCH, dialect, onProgress: progressLogger(job.log, 'store') })) {
      stored += (await writer.write(batch.rows)).stored
      progress()
    }
    await writer.flush()
    return { total_lines_success: stored, total_lines_error: 0, errors: [], project_id: job.projectId }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
