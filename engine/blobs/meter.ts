// The stream between an upload and the storage: counts bytes, computes the SHA-256 kept with
// every file (issue 10, integrity), and asks `check(total)` before passing each chunk on; a
// throw (a quota crossed) errors the stream at once, so the storage adapter abandons the
// object and the rest of the upload is never read (spec 1 "Limits": quota_limits).
// Chunks pass on at once; the hash of an upload larger than BATCH runs on the hashing worker
// (hash-worker.ts), fed with copies gathered into BATCH-sized buffers (one copy and one message
// per 4 MiB instead of a hash call per 64 KiB socket chunk on the event loop), at most
// IN_FLIGHT batches ahead, after which the upload waits for the worker; the worker hands each
// buffer back, so an upload holds at most IN_FLIGHT of them, whatever its size. A smaller
// upload is hashed here when it ends: a worker round trip would cost more than it saves.
import { createHash } from 'node:crypto'
import { Transform, type TransformCallback } from 'node:stream'
import { OffThreadHash } from './hash-worker.ts'

const BATCH = 4 * 1024 * 1024
const IN_FLIGHT = 4

export class Meter extends Transform {
  bytes = 0
  private digest: string | undefined
  /** Chunks not hashed yet (references: they are also on their way to the storage). */
  private held: Buffer[] = []
  private heldBytes = 0
  private hash: OffThreadHash | undefined
  private inFlight = 0
  /** Batch buffers back from the worker, for reuse. */
  private readonly spare: ArrayBuffer[] = []
  private waiting: (() => void) | undefined

  constructor (private readonly check: (total: number) => void) {
    super({ highWaterMark: 1024 * 1024 })
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    try {
      this.check(this.bytes + chunk.length)
    } catch (err) {
      return done(err as Error)
    }
    this.bytes += chunk.length
    this.held.push(chunk)
    this.heldBytes += chunk.length
    this.push(chunk)
    if (this.heldBytes < BATCH) return done()
    try {
      this.sendHeld()
    } catch (err) {
      return done(err as Error)
    }
    if (this.inFlight < IN_FLIGHT) return done()
    this.waiting = () => done()
  }

  override _flush(done: TransformCallback): void {
    if (!this.hash) {
      const h = createHash('sha256')
      for (const c of this.held) h.update(c)
      this.held = []
      this.digest = h.digest('hex')
      return done()
    }
    try {
      if (this.heldBytes > 0) this.sendHeld()
    } catch (err) {
      return done(err as Error)
    }
    this.hash.digest().then((hex) => { this.digest = hex; done() }, (err: Error) => done(err))
  }

  override _destroy(err: Error | null, done: (err: Error | null) => void): void {
    if (this.digest === undefined) this.hash?.drop()
    this.held = []
    this.spare.length = 0
    done(err)
  }

  private sendHeld(): void {
    this.hash ??= new OffThreadHash((buf) => this.acked(buf))
    let buf = this.spare.pop()
    if (!buf || buf.byteLength < this.heldBytes) buf = new ArrayBuffer(Math.max(BATCH, this.heldBytes))
    const into = new Uint8Array(buf)
    let at = 0
    for (const c of this.held) { into.set(c, at); at += c.length }
    this.held = []
    this.heldBytes = 0
    this.inFlight++
    this.hash.send(buf, at)
  }

  private acked(buf: ArrayBuffer | undefined): void {
    this.inFlight--
    if (buf) this.spare.push(buf)
    const w = this.waiting
    this.waiting = undefined
    w?.()
  }

  /** Hex SHA-256 of everything that passed; known once the stream has ended. */
  sha256(): string {
    if (this.digest === undefined) throw new Error('the upload has not ended')
    return this.digest
  }
}
