// The SQL side of the QuestDB store: GET /exec?query=.. over one keep-alive undici Agent.
// Answers are {dataset: [[..], ..], count} (nm=true drops the column metadata); a bad
// query answers 400 with {error, position}. Network failures are retried a bounded number
// of times (every statement sent here is idempotent: reads, CREATE .. IF NOT EXISTS, and an
// UPDATE that sets series = NULL) and then surface as OverloadedError (HTTP 503).
import { Agent, request } from 'undici'
import { OverloadedError } from '../../core/errors.ts'

export type Row = unknown[]

/** A QuestDB answer that is not a result: an SQL error, or an unexpected HTTP status. */
export class QuestdbQueryError extends Error {
  readonly code = 'QUESTDB_QUERY'
  constructor (message: string, readonly status: number, readonly query: string) {
    super(message)
  }
}

export interface QuestdbHttpOptions {
  /** Base URL, e.g. http://127.0.0.1:19000 */
  url: string
  /** Per request: time for the answer's headers and between body chunks (default 60 s). */
  timeoutMs?: number
  /** Attempts on network errors (default 3: waits of 100 and 400 ms between them). */
  attempts?: number
  username?: string
  password?: string
}

const NETWORK_ERRORS = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED',
])

export function isNetworkError(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string }; errors?: Array<{ code?: string }> }
  return NETWORK_ERRORS.has(e?.code ?? '') || NETWORK_ERRORS.has(e?.cause?.code ?? '') ||
    (Array.isArray(e?.errors) && e.errors.some((x) => NETWORK_ERRORS.has(x?.code ?? '')))
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export class QuestdbHttp {
  readonly origin: string
  private readonly agent: Agent
  private readonly timeoutMs: number
  private readonly attempts: number
  private readonly auth: string | undefined

  constructor (opts: QuestdbHttpOptions) {
    const u = new URL(opts.url)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`QuestDB URL must be http:// or https://, got ${opts.url}`)
    this.origin = u.origin
    this.timeoutMs = opts.timeoutMs ?? 60_000
    this.attempts = Math.max(1, opts.attempts ?? 3)
    this.auth = opts.username ? 'Basic ' + Buffer.from(`${opts.username}:${opts.password ?? ''}`).toString('base64') : undefined
    this.agent = new Agent({ keepAliveTimeout: 30_000, connections: 8, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs })
  }

  /** Runs one statement; returns the rows of a query (none for DDL/DML). */
  async exec(sql: string): Promise<Row[]> {
    let wait = 100
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(sql)
      } catch (err) {
        if (!isNetworkError(err)) throw err
        if (attempt >= this.attempts) {
          throw new OverloadedError(`QuestDB at ${this.origin} is unreachable (${(err as Error).message}); retry later`, { cause: err })
        }
        await sleep(wait)
        wait *= 4
      }
    }
  }

  private async once(sql: string): Promise<Row[]> {
    const res = await request(`${this.origin}/exec`, {
      dispatcher: this.agent,
      method: 'GET',
      query: { query: sql, nm: 'true' },
      headers: this.auth ? { authorization: this.auth } : {},
    })
    const text = await res.body.text()
    let body: { dataset?: Row[]; error?: string; position?: number } | undefined
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    if (res.statusCode === 200 && body && !body.error) return body.dataset ?? []
    const why = body?.error ? `${body.error}${body.position !== undefined ? ` (at ${body.position})` : ''}` : text.slice(0, 300)
    if (res.statusCode >= 500) {
      // QuestDB answers 5xx when it cannot serve right now (e.g. out of workers/memory).
      throw new OverloadedError(`QuestDB at ${this.origin} answered ${res.statusCode}: ${why}; retry later`)
    }
    throw new QuestdbQueryError(`QuestDB rejected a query (${res.statusCode}): ${why} -- ${sql.slice(0, 200)}`, res.statusCode, sql)
  }

  async close(): Promise<void> {
    await this.agent.close()
  }
}
