// SHA-256 of large uploads on one shared worker thread, so that hashing (~0.6 CPU-s per GiB
// here, the largest single cost of an upload on the event loop) runs beside the parsing and
// the writing instead of before them. Jobs are told apart by id; the worker answers every
// batch with an ack (the sender bounds its batches in flight) and the end with the digest.
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
    h.update(new Uint8Array(m.buf))
    parentPort.postMessage({ id: m.id, kind: 'ack' })
  } else if (m.kind === 'end') {
    const h = jobs.get(m.id) ?? createHash('sha256')
    jobs.delete(m.id)
    parentPort.postMessage({ id: m.id, kind: 'digest', hex: h.digest('hex') })
  } else if (m.kind === 'drop') jobs.delete(m.id)
})
`

interface Job { ack: () => void; digest: (hex: string) => void; fail: (err: Error) => void }

let worker: Worker | undefined
const jobs = new Map<number, Job>()
let nextId = 0

function hashWorker(): Worker {
  if (worker) return worker
  const w = new Worker(SOURCE, { eval: true })
  w.on('message', (m: { id: number; kind: 'ack' | 'digest'; hex?: string }) => {
    const job = jobs.get(m.id)
    if (!job) return
    if (m.kind === 'ack') job.ack()
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

/** One running hash on the worker. `send` transfers the buffer (it is detached afterwards). */
export class OffThreadHash {
  private readonly id = ++nextId
  private readonly w = hashWorker()
  private result: Promise<string>
  private failed: Error | undefined

  constructor (onAck: () => void) {
    this.result = new Promise<string>((resolve, reject) => {
      track(this.id, { ack: onAck, digest: resolve, fail: (err) => { this.failed = err; reject(err); onAck() } })
    })
    this.result.catch(() => {}) // read by digest(); a failure also surfaces there
  }

  send(buf: Buffer): void {
    if (this.failed) throw this.failed
    // A Buffer of its own (not a slice of a shared pool) is transferred without a copy.
    const own = buf.byteOffset === 0 && buf.byteLength === buf.buffer.byteLength
    const ab = own ? buf.buffer : buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)
    this.w.postMessage({ id: this.id, kind: 'data', buf: ab }, [ab as ArrayBuffer])
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
