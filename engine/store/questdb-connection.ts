// The QuestDB store's connection (questdb-store.ts): where QuestDB is (an http(s) URL or an
// ILP client configuration string), the table (created if missing, refused if of another
// design), and the ILP Sender whose HTTP transport carries the lines the store encodes itself.
// - Table (questdb-sql.ts createTableSql): ts TIMESTAMP (designated), series SYMBOL INDEX,
//   value DOUBLE, PARTITION BY DAY, WAL, DEDUP UPSERT KEYS(ts, series). The series id is a
//   SYMBOL with a bitmap index: a per-series read walks that key's row list in each day
//   partition of the range, never the other series' rows (a LONG column cannot be indexed).
//   DEDUP makes a replayed batch (Kafka redelivery, a retried flush) replace, not double;
//   the last value of a key wins, also within one transaction (tested).
// - Time: stored ts = real time + 400 years (questdb-sql.ts SHIFT). QuestDB refuses
//   designated timestamps before 1970; the platform's times reach back to ~1685. 400 years
//   is the Gregorian cycle, so stored dates read as the real ones with the year + 400.
import type { StoreObserver } from './port.ts'
import { Sender } from '@questdb/nodejs-client'
import type { Logger } from 'pino'
import { Agent } from 'undici'
import { QuestdbHttp } from './questdb-http.ts'
import { createTableSql, tableColumnsSql, tableInfoSql, tableName } from './questdb-sql.ts'

export interface QuestdbStoreOptions {
  /**
   * Where QuestDB's HTTP port is: 'http://127.0.0.1:19000', or an ILP client configuration
   * string such as 'http::addr=127.0.0.1:19000;username=..;password=..' (LINTEL_QUESTDB).
   */
  url: string
  /** Told of each commit: an ILP request sent until its rows are visible (the operator's metrics). */
  observer?: StoreObserver
  /** Table of the observations (default 'obs'); created if missing. */
  table?: string
  logger?: Logger
  /** Observations accepted but not yet visible before append() rejects (default 4M). */
  maxPendingRows?: number
  /** Rows per ILP request, i.e. per transaction (default 250,000). */
  rowsPerFlush?: number
  /** How long an append may wait for QuestDB to apply its transaction (default 60 s). */
  visibleTimeoutMs?: number
  /** The ILP client's retry_timeout, which also caps one request (default 10 s). */
  retryTimeoutMs?: number
}

/** Splits `url` into the /exec base URL and the ILP sender configuration. */
export function questdbTarget(url: string): { httpUrl: string; senderConfig: Map<string, string>; protocol: string } {
  const m = /^(https?)::(.*)$/.exec(url.trim())
  if (m) {
    const conf = new Map<string, string>()
    for (const part of m[2].split(';')) {
      if (!part) continue
      const eq = part.indexOf('=')
      if (eq <= 0) throw new Error(`QuestDB configuration '${url}': '${part}' is not key=value`)
      conf.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim())
    }
    const addr = conf.get('addr')
    if (!addr) throw new Error(`QuestDB configuration '${url}' has no addr=host:port`)
    return { httpUrl: `${m[1]}://${addr}`, senderConfig: conf, protocol: m[1] }
  }
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw new Error(`QuestDB URL '${url}' is neither http://host:port nor http::addr=host:port`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`QuestDB URL must be http(s)://host:port, got ${url}`)
  const conf = new Map([['addr', u.host]])
  if (u.username) conf.set('username', decodeURIComponent(u.username))
  if (u.password) conf.set('password', decodeURIComponent(u.password))
  return { httpUrl: `${u.protocol}//${u.host}`, senderConfig: conf, protocol: u.protocol.slice(0, -1) }
}

/** What the store sends its own encoded lines through (see IlpEncoder). */
export interface IlpTransport { send(data: Buffer): Promise<unknown> }

/** An open connection: the table's name, its /exec client, the Sender and its transport. */
export interface QuestdbConnection {
  table: string
  http: QuestdbHttp
  sender: Sender
  transport: IlpTransport
  agent: Agent
  log: Logger | undefined
}

/** Creates (or checks) the table and opens the Sender; closes what it opened when that fails. */
export async function openQuestdbConnection(opts: QuestdbStoreOptions): Promise<QuestdbConnection> {
  const table = tableName(opts.table ?? 'obs')
  const { httpUrl, senderConfig, protocol } = questdbTarget(opts.url)
  const log = opts.logger?.child({ module: 'timeseries-store', store: 'questdb', table })
  const http = new QuestdbHttp({ url: httpUrl, username: senderConfig.get('username'), password: senderConfig.get('password') })
  const agent = new Agent({ keepAliveTimeout: 60_000, connections: 1 })
  try {
    await http.exec(createTableSql(table))
    await checkTable(http, table)
    const conf = new Map(senderConfig)
    conf.set('auto_flush', 'off')
    if (!conf.has('protocol_version')) conf.set('protocol_version', '2')
    if (!conf.has('retry_timeout')) conf.set('retry_timeout', String(opts.retryTimeoutMs ?? 10_000))
    if (!conf.has('init_buf_size')) conf.set('init_buf_size', String(4 << 20))
    if (!conf.has('max_buf_size')) conf.set('max_buf_size', String(256 << 20))
    const senderConfig2 = `${protocol}::${[...conf].map(([k, v]) => `${k}=${v}`).join(';')};`
    const sender = await Sender.fromConfig(senderConfig2, {
      agent,
      log: (level, message) => { log?.[level]({ ilp: true }, typeof message === 'string' ? message : String(message)) },
    })
    return { table, http, sender, transport: senderTransport(sender), agent, log }
  } catch (err) {
    await http.close()
    await agent.close()
    throw err
  }
}

/**
 * The Sender's HTTP transport (its retries on network errors and 5xx for retry_timeout,
 * authentication, TLS), which the store feeds with lines it encodes itself
 * (questdb-ilp.ts). Not part of the client's typed API: checked here, at open, so that
 * another client version fails at start with a clear message rather than at the first write.
 */
function senderTransport(sender: Sender): IlpTransport {
  const transport = (sender as unknown as { transport?: IlpTransport }).transport
  if (typeof transport?.send !== 'function') {
    throw new Error('@questdb/nodejs-client has no Sender transport with send(): the QuestDB store needs the version in package.json')
  }
  return { send: (data) => transport.send.call(transport, data) }
}

/** Refuses a pre-existing table of another design (CREATE TABLE IF NOT EXISTS keeps it). */
async function checkTable(http: QuestdbHttp, table: string): Promise<void> {
  const [info] = await http.exec(tableInfoSql(table))
  const cols = await http.exec(tableColumnsSql(table))
  const col = new Map(cols.map((r) => [String(r[0]), { type: r[1], indexed: r[2], upsertKey: r[3] }]))
  const problems: string[] = []
  if (!info) problems.push('not listed by tables()')
  else {
    if (info[0] !== true) problems.push('not a WAL table')
    if (info[1] !== true) problems.push('no DEDUP')
    if (info[2] !== 'ts') problems.push(`designated timestamp is ${info[2]}, not ts`)
  }
  const ts = col.get('ts'); const series = col.get('series'); const value = col.get('value')
  if (ts?.type !== 'TIMESTAMP' || ts.upsertKey !== true) problems.push('ts is not a TIMESTAMP upsert key')
  if (series?.type !== 'SYMBOL' || series.upsertKey !== true) problems.push('series is not a SYMBOL upsert key')
  if (value?.type !== 'DOUBLE') problems.push('value is not a DOUBLE')
  if (problems.length) {
    throw new Error(`QuestDB table '${table}' exists with another design (${problems.join('; ')}); drop it or choose another table`)
  }
  if (series?.indexed !== true) {
    // Still correct, only slower; an index can be added to an existing table.
    await http.exec(`ALTER TABLE ${table} ALTER COLUMN series ADD INDEX`)
  }
}
