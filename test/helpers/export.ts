// Helpers of the export tests (test/api/exports*.test.ts): observations stored through the API,
// a job started and awaited, its file fetched through the document link, Parquet read by DuckDB.
import { DuckDBInstance } from '@duckdb/node-api'
import { formatTimestamp } from '../../core/timestamp.ts'
import type { Login, Platform } from './platform.ts'
import { waitFor } from './wait.ts'

export const T0 = Date.UTC(2024, 0, 1) * 1000 // µs

/** Stores `n` observations per datapoint: odd step lengths and fractional values, µs precision. */
export async function fill(p: Platform, pid: number, ids: string[], n: number) {
  const expected: [string, number, number][] = []
  const body: Record<string, { time: string; value: number }[]> = {}
  for (const [k, id] of ids.entries()) {
    body[id] = []
    for (let i = 0; i < n; i++) {
      const time = T0 + i * 61_000_003 + k
      const value = i * 0.1 - k * 7.25
      body[id].push({ time: formatTimestamp(time), value })
      expected.push([id, time, value])
    }
  }
  const res = await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, body)
  if (res.status !== 200) throw new Error(JSON.stringify(res.body))
  return expected.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]))
}

export const start = (p: Platform, pid: number, body: unknown, who: Login = p.admin) => p.call(who, 'POST', `/v2/project/${pid}/export`, body)
export const finished = (p: Platform, pid: number, id: number, who: Login = p.admin) => waitFor(async () => {
  const r = await p.call(who, 'GET', `/v2/project/${pid}/export/${id}`)
  return r.body.state !== 'running' ? r.body : undefined
}, { what: `export ${id} to end`, timeoutMs: 60_000 })

/** The file of a finished job, fetched through the document link (endpoint 93). */
export async function download(p: Platform, pid: number, path: string): Promise<Buffer> {
  const link = await p.call(p.admin, 'GET', `/v2/project/${pid}/file?${new URLSearchParams({ path })}`)
  if (link.status !== 200) throw new Error(JSON.stringify(link.body))
  return Buffer.from(await (await fetch(link.body.download_link)).arrayBuffer())
}

export async function duckRows(file: string): Promise<[string, number, number][]> {
  const db = await DuckDBInstance.create(':memory:')
  const c = await db.connect()
  try {
    const r = await c.runAndReadAll(`SELECT datapoint, epoch_us(time)::DOUBLE AS us, value FROM read_parquet('${file}')`)
    return r.getRows().map((x) => [String(x[0]), Number(x[1]), Number(x[2])])
  } finally {
    c.closeSync()
    db.closeSync()
  }
}

