// The reader pool of the SQLite store (issue 14 item 5): `size` worker threads, each with its
// own read-only connection (sqlite-read-worker.ts). A request goes to the worker with the
// fewest requests in flight; WAL gives every statement the last committed state, so a read
// issued after an append resolved sees it, whichever worker runs it.
import type { Worker } from 'node:worker_threads'
import type { MeanPoint, Point, RangeQuery, SampleQuery } from './port.ts'
import type { ReadReply, ReadRequest } from './sqlite-read-worker.ts'
import { spawnModuleWorker } from './worker-boot.ts'

const READER_URL = new URL('./sqlite-read-worker.ts', import.meta.url).href

type Ok = Extract<ReadReply, { ok: true }>
type Body = ReadRequest extends infer R ? R extends { id: number } ? Omit<R, 'id'> : never : never
interface Slot { worker: Worker; pending: Map<number, { resolve: (r: Ok) => void; reject: (e: Error) => void }> }

function rebuild(m: Extract<ReadReply, { ok: false }>): Error {
  const E = m.name === 'RangeError' ? RangeError : m.name === 'TypeError' ? TypeError : Error
  return new E(m.message)
}

export class ReadPool {
  private nextId = 1
  private failure: Error | undefined

  private constructor (private readonly slots: Slot[]) {}

  static async open(file: string, size: number): Promise<ReadPool> {
    const slots: Slot[] = Array.from({ length: size }, () => ({ worker: spawnModuleWorker(READER_URL, { file }), pending: new Map() }))
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
    const pool = new ReadPool(slots)
    for (const s of slots) {
      s.worker.on('message', (m: ReadReply) => pool.settle(s, m))
      s.worker.on('error', (err) => pool.fail(err))
      s.worker.on('exit', (code) => pool.fail(new Error(`time-series reader exited (${code})`)))
      s.worker.unref()
    }
    return pool
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

  async count(series: number, start?: number, end?: number): Promise<number> {
    return (await this.send({ op: 'count', series, start, end })).n!
  }

  async listSeries(): Promise<number[]> {
    return (await this.send({ op: 'listSeries' })).ids!
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map(async (s) => {
      if (!this.failure) await this.send({ op: 'close' }, s).catch(() => {})
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
