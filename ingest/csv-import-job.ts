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
import { InvalidInputError } from '../catalog/errors.ts'
import { lineErrorMessage, parseCsvStream, type CsvDialect, type CsvLineError, type CsvProgress, type CsvRow } from './csv/import.ts'
import type { ObservationWriter, WriteCheck } from './observation-writer.ts'

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

export interface ImportJob {
  projectId: number
  input: AsyncIterable<Buffer>
  writer: ObservationWriter
  canWrite: WriteCheck
  log: ProgressLog
  spoolDir?: string
}

const noWriteAccess = (id: string) => `No write access to datapoint '${id}'`

function progressLogger(log: ProgressLog, phase: string) {
  const started = Date.now()
  return (p: CsvProgress) => {
    const s = (Date.now() - started) / 1000
    log.info({ phase, lines: p.lines, rows: p.rows, errors: p.errors, mbytes: Math.round(p.bytes / 1e5) / 10, rows_per_s: Math.round(p.rows / Math.max(s, 0.001)), done: p.done }, 'csv import progress')
  }
}

/** Rows whose datapoint the caller may not write become line errors. */
function splitByAccess(job: ImportJob, rows: CsvRow[]): { allowed: CsvRow[]; denied: CsvLineError[] } {
  const denied = job.writer.deniedIdentifiers(job.projectId, rows.map((r) => r.id), job.canWrite)
  if (denied.size === 0) return { allowed: rows, denied: [] }
  const allowed: CsvRow[] = []
  const errors: CsvLineError[] = []
  for (const r of rows) {
    if (denied.has(r.id)) errors.push({ line_no: r.line, error: noWriteAccess(r.id) })
    else allowed.push(r)
  }
  return { allowed, denied: errors }
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
  for await (const batch of parseCsvStream(job.input, { onProgress: progressLogger(job.log, 'store') })) {
    const { allowed, denied } = splitByAccess(job, batch.rows)
    await job.writer.write(job.projectId, allowed, job.canWrite)
    result.total_lines_success += allowed.length
    // Parser errors and access errors of one batch, in line order.
    list([...batch.errors, ...denied].sort((a, b) => a.line_no - b.line_no))
  }
  return result
}

export async function importAbort(job: ImportJob): Promise<ImportResult> {
  const dir = await mkdtemp(join(job.spoolDir ?? tmpdir(), 'lintel-import-'))
  const spool = join(dir, 'upload.csv')
  try {
    // Pass 1: spool and check every line; the first bad one ends the import.
    const out = createWriteStream(spool)
    let dialect: CsvDialect | undefined
    async function* tee(): AsyncGenerator<Buffer> {
      for await (const chunk of job.input) {
        if (!out.write(chunk)) await once(out, 'drain')
        yield chunk
      }
    }
    try {
      for await (const batch of parseCsvStream(tee(), { maxErrors: 1, onDialect: (d) => { dialect = d }, onProgress: progressLogger(job.log, 'check') })) {
        const { denied } = splitByAccess(job, batch.rows)
        const first = [...batch.errors, ...denied].sort((a, b) => a.line_no - b.line_no)[0]
        if (first) throw new InvalidInputError(lineErrorMessage(first.line_no, first.error))
      }
    } finally {
      out.end()
      await once(out, 'close')
    }
    // Pass 2: every line is good; store them.
    let stored = 0
    for await (const batch of parseCsvStream(createReadStream(spool, { highWaterMark: 1 << 20 }), { dialect, onProgress: progressLogger(job.log, 'store') })) {
      await job.writer.write(job.projectId, batch.rows, job.canWrite)
      stored += batch.rows.length
    }
    return { total_lines_success: stored, total_lines_error: 0, errors: [], project_id: job.projectId }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
