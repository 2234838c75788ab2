// Server-side progress of a CSV import (issue 33; docs/import.md "Progress"). The import answers
// only once every line is stored, and while the upload is being sent its progress is the
// server's (the server reads as it stores); what a client cannot see is the work after the
// upload ended: on_error=abort stores the checked file in a second pass, continue stores its
// last batches. A client that sends `Accept: application/x-ndjson` gets the answer as NDJSON:
// a progress line after every batch stored once the upload has been read whole, then the usual
// envelope as the last line. The default answer (any other Accept) is unchanged.
// Until the stream begins, every failure keeps its status and JSON envelope (a line error 400,
// a slow upload 408, a file over the limit 413); one after it began is its last line: the
// failure envelope with the `status` and `code` it would have had.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { LintelError } from '../core/errors.ts'
import type { ImportProgress, ImportResult } from '../ingest/csv-import-job.ts'
import { ERROR_CODE_HEADER } from './error-handler.ts'

export const NDJSON = 'application/x-ndjson'

export class ImportProgressStream {
  private readonly wanted: boolean
  private uploadRead = false
  private started = false

  constructor (private readonly req: FastifyRequest, private readonly reply: FastifyReply) {
    this.wanted = (req.headers.accept ?? '').includes(NDJSON)
  }

  /** The upload was read to its end; `truncated`: it was over the limit (413 follows, not a stream). */
  uploadEnded(truncated: boolean): void {
    this.uploadRead = !truncated
  }

  /** A stored batch: a progress line, once the upload was read whole. */
  readonly progress = (p: ImportProgress): void => {
    if (!this.wanted || !this.uploadRead) return
    this.line({ type: 'progress', ...p })
  }

  /** The result: the last line of the stream, or the usual answer. */
  finish(result: ImportResult): FastifyReply {
    const envelope = { success: true, operation: '', resource: result }
    if (!this.wanted) return this.reply.code(200).send(envelope)
    this.line(envelope)
    this.reply.raw.end()
    return this.reply
  }

  /** A failure: true when it was written as the stream's last line, false when the error handler answers it. */
  failed(err: unknown): boolean {
    if (!this.started) return false
    const known = err instanceof LintelError
    if (!known) this.req.log.error({ err }, 'csv import failed after its progress stream began')
    this.line({ success: false, error: known ? err.message : 'Internal server error', operation: '', status: known ? err.status : 500, code: known ? err.code : 'INTERNAL' })
    this.reply.raw.end()
    return true
  }

  private line(o: object): void {
    if (!this.started) {
      this.started = true
      this.reply.hijack()
      // The headers the request's hooks set (CORS, request id) go out as well.
      const headers: Record<string, string | string[]> = {}
      for (const [k, v] of Object.entries(this.reply.getHeaders())) if (v !== undefined && k !== ERROR_CODE_HEADER) headers[k] = typeof v === 'number' ? String(v) : v
      this.reply.raw.writeHead(200, { ...headers, 'content-type': `${NDJSON}; charset=utf-8`, 'cache-control': 'no-store' })
    }
    this.reply.raw.write(JSON.stringify(o) + '\n')
  }
}
