// The reader pool of the SQLite store (issue 14 item 5): `size` worker threads, each with its
// own read-only connection (sqlite-read-worker.ts). A request goes to the worker with the
// fewest requests in flight; WAL gives every statement the last committed state, so a read
// issued after an append resolved sees it, whichever worker runs it.
// A worker that dies (an error, a crash of the native module) fails only the reads it held,
// with OVERLOADED (503, retry), and is replaced; one that dies before it could open its
// connection fails the pool (no respawn loop on a file that cannot be opened).
import type { Worker } from 'node:worker_threads'
import { OverloadedError } from '../../core/errors.ts'
import { floorDiv } from './buckets.ts'
import type { AnswerFrame, MeanPoint, Point, RangeQuery, SampleQuery } from './port.ts'
import type { ReadReply, ReadRequest } from './sqlite-read-worker.ts'
import { spawnModuleWorker } from './worker-boot.ts'

/** Samples of at least this many buckets are split over two workers (sampleAnswer). */
const SPLIT_BUCKETS = 8192
const COMMA = Buffer.from(',')

const READER_URL = new URL('./sqlite-read-worker.ts', import.meta.url).href

type Ok = Extract<ReadReply, { ok: true }>
type Body = ReadRequest extends infer R ? R extends { id: number } ? Omit<R, 'id'> : never : never
interface Slot { worker: Worker; ready: boolean; pending: Map<number, { resolve: (r: Ok) => void; reject: (e: Error) => void }> }

function rebuild(m: Extract<ReadReply, { ok: false }>): Error {
  const E = m.name === 'RangeError' ? RangeError : m.name === 'TypeError' ? TypeError : Error
  return new E(m.message)
}

export class ReadPool {
  private nextId = 1
  private failure: Error | undefined
  private closing = false

  private constructor (private readonly slots: Slot[], private readonly file: string) {}

  static async open(file: string, size: number): Promise<ReadPool> {
    const slots: Slot[] = Array.from({ length: size }, () => ({ worker: spawnModuleWorker(READER_URL, { file }), ready: true, pending: new Map() }))
    try {
      await Promise.all(slots.map(({ worker }) => new Promise<void>((resolve, reject) => {
        const onMessage = (m: ReadReply) => {
          if (m.id !== 0) return
          worker.off('message', onMessage)
          if (m.ok) resolve()
          else reject(new Error(`cannot open a reader of ${file}: ${m.message}`))
        }
        worker.on('message', onMessage).once('error', reject).once('exit', (code) => reject(new Error(`reader of ${file} exited (${code})`)))
      })))
    } catch (err) {
      await Promise.all(slots.map((s) => s.worker.terminate()))
      throw err
    }
    const pool = new ReadPool(slots, file)
    for (const s of slots) pool.attach(s, s.worker)
    return pool
  }

  private attach(slot: Slot, worker: Worker): void {
    slot.worker = worker
    worker.on('message', (m: ReadReply) => {
      if (m.id === 0) slot.ready = m.ok
      else this.settle(slot, m)
    })
    worker.on('error', (err) => this.lost(slot, worker, err.message))
    worker.on('exit', (code) => this.lost(slot, worker, `exit code ${code}`))
    if (slot.pending.size === 0) worker.unref()
  }

  /** A worker died: its reads fail with a clear error, and it is replaced. */
  private lost(slot: Slot, worker: Worker, cause: string): void {
    if (this.closing || slot.worker !== worker) return // closed on purpose, or already replaced
    const err = new OverloadedError(`The time-series reader stopped (${cause}); retry the read`, { retryAfterMs: 1000 })
    for (const p of slot.pending.values()) p.reject(err)
    slot.pending.clear()
    if (!slot.ready) return this.fail(err)
    slot.ready = false
    this.attach(slot, spawnModuleWorker(READER_URL, { file: this.file }))
  }

  async read(series: number, q: RangeQuery): Promise<Point[]> {
    const r = await this.send({ op: 'read', series, q })
    const out: Point[] = new Array(r.times!.length)
    for (let i = 0; i < out.length; i++) out[i] = { time: r.times![i], value: r.values![i] }
    return out
  }

  async sample(series: number, q: SampleQuery): Promise<MeanPoint[]> {
    const r = await this.send({ op: 'sample', series, q })
    const out: MeanPoint[] = new Array(r.times!.length)
    for (let i = 0; i < out.length; i++) out[i] = { time: r.times![i], mean: r.values![i] }
    return out
  }

  /** The JSON answer, encoded in the worker; its bytes are transferred, not copied. */
  async readAnswer(series: number, q: RangeQuery, frame: AnswerFrame): Promise<Uint8Array> {
    return (await this.send({ op: 'readAnswer', series, q, frame })).body!
  }

  /**
   * A sample of many fixed buckets is split at a bucket boundary into two halves read and
   * encoded by two workers at once (both cores; each bucket lies wholly in one half and is
   * computed as in a whole read, sqlite-reader.ts fold()). Each half is its own snapshot:
   * a write committed between the two may show in one half only, as if that half had been
   * read a moment later (live ingest appends to the last buckets, the second half).
   */
  async sampleAnswer(series: number, q: SampleQuery, frame: AnswerFrame): Promise<Uint8Array> {
    const iv = q.interval
    const whole = () => this.send({ op: 'sampleAnswer', series, q, frame }).then((r) => r.body!)
    if (this.slots.length < 2 || typeof iv !== 'number' || q.start === undefined || q.end === undefined || frame.lastBuckets) return whole()
    if ((q.end - q.start) / iv < SPLIT_BUCKETS) return whole()
    const mid = floorDiv(q.start + (q.end - q.start) / 2, iv) * iv
    if (mid <= q.start || mid >= q.end) return whole()
    const [s1, s2] = [...this.slots].sort((a, b) => a.pending.size - b.pending.size)
    const [a, b] = await Promise.all([
      this.send({ op: 'sampleAnswer', series, q: { ...q, end: mid }, frame: { ...frame, tail: '' } }, s1),
      this.send({ op: 'sampleAnswer', series, q: { ...q, start: mid }, frame: { ...frame, head: '' } }, s2),
    ])
    return Buffer.concat(a.n! > 0 && b.n! > 0 ? [a.body!, COMMA, b.body!] : [a.body!, b.body!])
  }

  async count(series: number, start?: number, end?: number): Promise<number> {
    return (await this.send({ op: 'count', series, start, end })).n!
  }

  async listSeries(): Promise<number[]> {
    return (await this.send({ op: 'listSeries' })).ids!
  }

  async close(): Promise<void> {
    this.closing = true
    await Promise.all(this.slots.map(async (s) => {
      if (!this.failure) await this.send({ op: 'close' }, s).catch(() => {})
      // Held until it has exited (settle() unrefs a worker with nothing pending): an unref'd
      // worker lets the process end while close() still waits for it.
      s.worker.ref()
      await s.worker.terminate()
    }))
  }

  private send(body: Body, to?: Slot): Promise<Ok> {
    if (this.failure) return Promise.reject(this.failure)
    const slot = to ?? this.slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a))
    const id = this.nextId++
    const done = new Promise<Ok>((resolve, reject) => slot.pending.set(id, { resolve, reject }))
    if (slot.pending.size === 1) slot.worker.ref()
    slot.worker.postMessage({ id, ...body } as ReadRequest)
    return done
  }

  private settle(slot: Slot, m: ReadReply): void {
    const p = slot.pending.get(m.id)
    if (!p) return
    slot.pending.delete(m.id)
    if (slot.pending.size === 0) slot.worker.unref()
    if (m.ok) p.resolve(m)
    else p.reject(rebuild(m))
  }

  private fail(err: Error): void {
    this.failure ??= err
    for (const s of this.slots) { for (const p of s.pending.values()) p.reject(err); s.pending.clear() }
  }
}
