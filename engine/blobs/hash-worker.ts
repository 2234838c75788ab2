// SHA-256 of large uploads on one shared worker thread, so that hashing (~0.6 CPU-s per GiB
// here, the largest single cost of an upload on the event loop) runs beside the parsing and
// the writing instead of before them. Jobs are told apart by id; the worker answers every
// batch with an ack that hands the batch's memory back (the sender reuses it and bounds its
// batches in flight: no garbage per batch) and the end with the digest.
// Plain JavaScript evaluated in the worker: nothing to load, it starts in milliseconds.
import { Worker } from 'node:worker_threads'

const SOURCE = `
const { parentPort } = require('node:worker_threads')
const { createHash } = require('node:crypto')
const jobs = new Map()
parentPort.on('message', (m) => {
  if (m.kind === 'data') {
    let h = jobs.get(m.id)
    if (!h) jobs.set(m.id, (h = createHash('sha256')))
    h.update(new Uint8Array(m.buf, 0, m.len))
    parentPort.postMessage({ id: m.id, kind: 'ack', buf: m.buf }, [m.buf])
  } else if (m.kind === 'end') {
    const h = jobs.get(m.id) ?? createHash('sha256')
    jobs.delete(m.id)
    parentPort.postMessage({ id: m.id, kind: 'digest', hex: h.digest('hex') })
  } else if (m.kind === 'drop') jobs.delete(m.id)
})
`

interface Job { ack: (buf?: ArrayBuffer) => void; digest: (hex: string) => void; fail: (err: Error) => void }

let worker: Worker | undefined
const jobs = new Map<number, Job>()
let nextId = 0

function hashWorker(): Worker {
  if (worker) return worker
  const w = new Worker(SOURCE, { eval: true })
  w.on('message', (m: { id: number; kind: 'ack' | 'digest'; hex?: string; buf?: ArrayBuffer }) => {
    const job = jobs.get(m.id)
    if (!job) return
    if (m.kind === 'ack') job.ack(m.buf)
    else { forget(m.id); job.digest(m.hex!) }
  })
  const lost = (err: Error) => {
    if (worker === w) worker = undefined
    for (const [id, job] of jobs) { forget(id); job.fail(err) }
  }
  w.on('error', lost)
  w.on('exit', (code) => lost(new Error(`the hashing worker stopped (exit code ${code})`)))
  w.unref()
  worker = w
  return w
}

// The worker keeps the process alive only while a hash is under way.
function track(id: number, job: Job): void {
  jobs.set(id, job)
  if (jobs.size === 1) worker?.ref()
}
function forget(id: number): boolean {
  if (!jobs.delete(id)) return false
  if (jobs.size === 0) worker?.unref()
  return true
}

/** One running hash on the worker. `send` transfers the memory (detached until its ack gives it back). */
export class OffThreadHash {
  private readonly id = ++nextId
  private readonly w = hashWorker()
  private result: Promise<string>
  private failed: Error | undefined

  constructor (onAck: (buf?: ArrayBuffer) => void) {
    this.result = new Promise<string>((resolve, reject) => {
      track(this.id, { ack: onAck, digest: resolve, fail: (err) => { this.failed = err; reject(err); onAck() } })
    })
    this.result.catch(() => {}) // read by digest(); a failure also surfaces there
  }

  /** Hashes the first `len` bytes of `buf`. */
  send(buf: ArrayBuffer, len: number): void {
    if (this.failed) throw this.failed
    this.w.postMessage({ id: this.id, kind: 'data', buf, len }, [buf])
  }

  digest(): Promise<string> {
    if (!this.failed) this.w.postMessage({ id: this.id, kind: 'end' })
    return this.result
  }

  drop(): void {
    if (!forget(this.id)) return
    this.w.postMessage({ id: this.id, kind: 'drop' })
  }
}
