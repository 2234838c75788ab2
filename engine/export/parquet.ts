// An export's rows as Apache Parquet bytes (issue 34 item 1), written with hyparquet-writer
// (maintained; @dsnp/parquetjs reads dictionary pages but does not write them) on a worker
// thread (parquet-worker.ts: the encoding stays off the event loop). Columns:
//   datapoint  BYTE_ARRAY UTF8, RLE_DICTIONARY encoded (one dictionary entry per series in a row group)
//   time       INT64 TIMESTAMP(MICROS, UTC)
//   value      DOUBLE
// Rows are gathered into row groups of ROW_GROUP rows; while the worker encodes one group the
// next is gathered, and each group's bytes are handed on as soon as they are encoded, so
// memory holds two row groups and the footer's metadata, whatever the number of rows.
import { Worker } from 'node:worker_threads'
import { spawnModuleWorker } from '../store/worker-boot.ts'
import type { RowChunk } from './rows.ts'

/** Rows per row group (DuckDB's default size): with the one being encoded, the memory bound of the writer. */
export const ROW_GROUP = 122_880

type Reply = { chunks: Uint8Array[] } | { error: string }

/** One request to the worker at a time, answered in order. */
class Encoder {
  private readonly worker: Worker
  private pending: { resolve: (r: Buffer[]) => void; reject: (e: Error) => void } | undefined
  private failed: Error | undefined

  constructor () {
    this.worker = spawnModuleWorker(new URL('./parquet-worker.ts', import.meta.url).href, {})
    this.worker.on('message', (r: Reply) => this.settle('error' in r ? new Error(`Parquet encoder: ${r.error}`) : r.chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength))))
    this.worker.on('error', (err) => this.settle(err))
    this.worker.on('exit', (code) => { if (code !== 0) this.settle(new Error(`Parquet encoder stopped (exit code ${code})`)) })
  }

  private settle(r: Buffer[] | Error): void {
    const p = this.pending
    this.pending = undefined
    if (r instanceof Error) { this.failed ??= r; p?.reject(r) } else p?.resolve(r)
  }

  send(msg: object, transfer: ArrayBuffer[] = []): Promise<Buffer[]> {
    if (this.failed) return Promise.reject(this.failed)
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject }
      this.worker.postMessage(msg, transfer)
    })
  }

  close(): Promise<number> { return this.worker.terminate() }
}

export async function* parquetBytes(rows: AsyncIterable<RowChunk>, rowGroup = ROW_GROUP): AsyncGenerator<Buffer> {
  const enc = new Encoder()
  let inFlight: Promise<Buffer[]> | undefined
  let runs: [string, number][] = []
  let times = new Float64Array(rowGroup)
  let values = new Float64Array(rowGroup)
  let n = 0
  const send = () => {
    const t = n === rowGroup ? times : times.slice(0, n)
    const v = n === rowGroup ? values : values.slice(0, n)
    const p = enc.send({ kind: 'group', runs, times: t, values: v }, [t.buffer as ArrayBuffer, v.buffer as ArrayBuffer])
    p.catch(() => {}) // awaited below; a failure is thrown there
    runs = []
    times = new Float64Array(rowGroup)
    values = new Float64Array(rowGroup)
    n = 0
    return p
  }
  try {
    for await (const r of rows) {
      const pts = r.points
      for (let i = 0; i < pts.length;) {
        const take = Math.min(pts.length - i, rowGroup - n)
        const last = runs[runs.length - 1]
        if (last && last[0] === r.dataPointID) last[1] += take
        else runs.push([r.dataPointID, take])
        for (let k = 0; k < take; k++, i++, n++) { times[n] = pts[i].time; values[n] = pts[i].value }
        if (n === rowGroup) {
          if (inFlight) yield* await inFlight
          inFlight = send()
        }
      }
    }
    if (inFlight) yield* await inFlight
    inFlight = undefined
    if (n > 0) yield* await send()
    yield* await enc.send({ kind: 'finish' })
  } finally {
    await enc.close()
  }
}
