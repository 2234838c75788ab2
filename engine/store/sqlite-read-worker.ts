// A reader worker of the SQLite store (issue 14 item 5): its own read-only connection runs
// SqliteReader, so a long read (a year of 15-minute buckets, a 2,000-point chunk) never
// holds the main event loop. Results go back as transferred Float64Arrays (times, values),
// not as arrays of objects, so the main thread pays no structured clone per point. The
// *Answer ops encode the whole JSON answer here (engine/answer-json.ts) and transfer its
// bytes: the main thread only writes them to the socket (issue 14 item 5).
import { parentPort, workerData } from 'node:worker_threads'
import { encodeAnswer } from '../answer-json.ts'
import type { AnswerFrame, RangeQuery, SampleQuery } from './port.ts'
import { SqliteReader } from './sqlite-reader.ts'
import { openReaderDatabase } from './sqlite-schema.ts'

export type ReadRequest =
  | { id: number; op: 'read'; series: number; q: RangeQuery }
  | { id: number; op: 'sample'; series: number; q: SampleQuery }
  | { id: number; op: 'readAnswer'; series: number; q: RangeQuery; frame: AnswerFrame }
  | { id: number; op: 'sampleAnswer'; series: number; q: SampleQuery; frame: AnswerFrame }
  | { id: number; op: 'count'; series: number; start?: number; end?: number }
  | { id: number; op: 'listSeries' }
  | { id: number; op: 'close' }

export type ReadReply =
  | { id: number; ok: true; times?: Float64Array; values?: Float64Array; body?: Uint8Array; n?: number; ids?: number[] }
  | { id: number; ok: false; name: string; message: string }

function mustBeWorker(): never { throw new Error('sqlite-read-worker.ts must run in a worker thread') }
const port = parentPort ?? mustBeWorker()

function columns<T extends { time: number }>(points: T[], value: (p: T) => number): { times: Float64Array; values: Float64Array } {
  const times = new Float64Array(points.length)
  const values = new Float64Array(points.length)
  for (let i = 0; i < points.length; i++) { times[i] = points[i].time; values[i] = value(points[i]) }
  return { times, values }
}

try {
  const db = openReaderDatabase((workerData as { file: string }).file)
  const reader = new SqliteReader(db)
  port.on('message', (req: ReadRequest) => {
    try {
      let reply: ReadReply
      if (req.op === 'read') reply = { id: req.id, ok: true, ...columns(reader.read(req.series, req.q), (p) => p.value) }
      else if (req.op === 'sample') reply = { id: req.id, ok: true, ...columns(reader.sample(req.series, req.q), (p) => p.mean) }
      else if (req.op === 'readAnswer') reply = { id: req.id, ok: true, body: encodeAnswer(req.frame.head, reader.read(req.series, req.q), (p) => p.value, req.frame.field, req.frame.tail) }
      else if (req.op === 'sampleAnswer') {
        const all = reader.sample(req.series, req.q)
        const points = req.frame.lastBuckets ? all.slice(-req.frame.lastBuckets) : all
        reply = { id: req.id, ok: true, n: points.length, body: encodeAnswer(req.frame.head, points, (p) => p.mean, req.frame.field, req.frame.tail) }
      } else if (req.op === 'count') reply = { id: req.id, ok: true, n: reader.count(req.series, req.start, req.end) }
      else if (req.op === 'listSeries') reply = { id: req.id, ok: true, ids: reader.listSeries() }
      else {
        db.close()
        port.postMessage({ id: req.id, ok: true } satisfies ReadReply)
        port.close()
        return
      }
      const transfer = reply.times ? [reply.times.buffer as ArrayBuffer, reply.values!.buffer as ArrayBuffer] : reply.body ? [reply.body.buffer as ArrayBuffer] : []
      port.postMessage(reply, transfer)
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err))
      port.postMessage({ id: req.id, ok: false, name: e.name, message: e.message } satisfies ReadReply)
    }
  })
  port.postMessage({ id: 0, ok: true } satisfies ReadReply)
} catch (err) {
  port.postMessage({ id: 0, ok: false, name: 'Error', message: err instanceof Error ? err.message : String(err) } satisfies ReadReply)
  port.close()
}
