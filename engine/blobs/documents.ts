// The document spaces (spec 1 "Documents"): uploads metered into the storage and committed to
// the catalog, links, deletes, and removal of whole spaces. An upload streams through a Meter
// (bounded memory: the storage adapter's backpressure reaches the client's socket) that stops
// it at the first byte over the file-size limit or over the space's free bytes, counting what
// the space's other running uploads have reserved (upload-gate.ts: admission, reservations,
// temporary space); the catalog's commit then decides exactly, so concurrent uploads can never
// exceed a quota together. A full disk is a 507, a body slower than the minimum rate a 408.
import { randomUUID } from 'node:crypto'
import type { Readable } from 'node:stream'
import type { Space } from '../../catalog/files.ts'
import type { FilesPort } from '../../catalog/port.ts'
import { InsufficientStorageError, InvalidInputError, NotFoundError, RequestTimeoutError } from '../../core/errors.ts'
import { Meter } from './meter.ts'
import type { BlobStore } from './port.ts'
import { every, MICROS_PER_MS, nowMs, systemClock, type Cancel, type Clock } from '../../core/clock/clock.ts'
import { DEFAULT_UPLOAD_LIMITS, UploadGate, type UploadLimits, type UploadTicket } from './upload-gate.ts'

/** Most bytes of a form around its file part (boundaries, part headers, up to 5 fields of 4 KiB). */
const MULTIPART_ENVELOPE = 32 * 1024

/** A full disk (or quota of the file system) as a 507: the storage adapters left nothing behind. */
function storageFull(err: unknown): InsufficientStorageError | undefined {
  const code = (err as { code?: string } | null)?.code
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return undefined
  return new InsufficientStorageError('The document storage is full: the upload was not stored; free space or ask the operator')
}

export interface DocumentsOptions {
  /** Time of commits and links, and the sweeps' timer (core/clock); default the system clock. */
  clock?: Clock
  log?: { warn: (o: object, msg: string) => void }
  /** How often (bytes) a running upload re-reads the space's committed use (default 8 MiB:
   *  one catalog query per MiB held the event loop 78 ms per 512 MiB upload, profiled at
   *  load ~17). */
  refreshEvery?: number
  /** Bounds of running uploads (upload-gate.ts); default DEFAULT_UPLOAD_LIMITS. */
  uploads?: Partial<UploadLimits>
}

export interface Uploaded { path: string; size_bytes: number; sha256: string }

export class Documents {
  private readonly clock: Clock
  private readonly refreshEvery: number
  readonly gate: UploadGate

  constructor (readonly files: FilesPort, readonly blobs: BlobStore, private readonly o: DocumentsOptions = {}) {
    this.clock = o.clock ?? systemClock
    this.refreshEvery = o.refreshEvery ?? 8 * 1024 * 1024
    this.gate = new UploadGate({ ...DEFAULT_UPLOAD_LIMITS, ...o.uploads })
  }

  /** Admits an upload into `space` now (429/503 when the gate is full), to be passed to upload() later (export jobs: refused before the job exists). */
  admit(space: Space): UploadTicket {
    return this.gate.admit(space, this.files.key(space))
  }

  /**
   * Stores `body` as the file at `path`: `create` refuses an existing path (400), `replace` a
   * missing one (404). `declaredBytes` (the request's Content-Length, envelope included) lets a
   * body that cannot fit be refused before its first byte is read. `admittedAs`: a ticket of
   * admit(), released here however the upload ends.
   */
  async upload(space: Space, mode: 'create' | 'replace', path: string, body: Readable, declaredBytes?: number, admittedAs?: UploadTicket): Promise<Uploaded> {
    const ticket = admittedAs ?? this.admit(space)
    try {
      return await this.admitted(ticket, space, mode, path, body, declaredBytes)
    } finally {
      ticket.release()
    }
  }

  private async admitted(ticket: UploadTicket, space: Space, mode: 'create' | 'replace', path: string, body: Readable, declaredBytes?: number): Promise<Uploaded> {
    const existing = await this.files.get(space, path)
    if (mode === 'create' && existing) throw new InvalidInputError(`File '${path}' already exists`)
    if (mode === 'replace' && !existing) throw new NotFoundError(`File '${path}' not found`)
    const limits = await this.files.limits(space)
    const used = await this.files.usage(space)
    if (!existing && used.files + 1 > limits.files) throw this.files.filesFull(space, limits)
    // Bytes held by the other files of the space, plus what this node committed there since
    // (the ticket), plus what the space's other running uploads reserved; re-read while
    // streaming, so an upload that one on another node overtook stops early too.
    let others = used.space_bytes - (existing?.size_bytes ?? 0)
    let since = 0
    const taken = () => others + ticket.committedSince() - since + ticket.othersReserved()
    // The declared body less its multipart envelope is the least the file can be: refused at
    // once when that cannot fit, else reserved, so concurrent uploads see it before it streams.
    const least = Math.max(0, (declaredBytes ?? 0) - MULTIPART_ENVELOPE)
    const early = this.files.refusal(space, limits, taken(), least)
    if (early) throw early
    ticket.reserve(least)
    let nextRefresh = this.refreshEvery
    const meter = new Meter((total) => {
      const refused = this.files.refusal(space, limits, taken(), total)
      if (refused) throw refused
      ticket.reserve(total)
      if (total >= nextRefresh) {
        nextRefresh = total + this.refreshEvery
        const mark = ticket.committedSince()
        this.files.usage(space).then((u) => { others = u.space_bytes - (existing?.size_bytes ?? 0); since = mark }, () => {})
      }
    })
    body.once('error', (err) => meter.destroy(err))
    const stopGuard = this.rateGuard(meter, (err) => { body.unpipe(meter); meter.destroy(err) })
    body.pipe(meter)
    const objectKey = `${this.files.key(space)}/${randomUUID()}`
    try {
      await this.blobs.put(objectKey, meter)
    } catch (err) {
      body.unpipe(meter) // the rest of the upload is not read: the route closes the connection
      meter.destroy() // an adapter may leave it open
      throw storageFull(err) ?? err
    } finally {
      stopGuard()
    }
    const file = { path, object_key: objectKey, size_bytes: meter.bytes, sha256: meter.sha256() }
    let replacedKey: string | undefined
    try {
      ({ replacedKey } = await this.files.commit(space, mode, file, nowMs(this.clock)))
    } catch (err) {
      await this.blobs.delete(objectKey).catch((e) => this.o.log?.warn({ err: e, objectKey }, 'documents: refused upload left an object'))
      throw err
    }
    this.gate.committed(this.files.key(space), file.size_bytes - (existing?.size_bytes ?? 0))
    if (replacedKey) await this.blobs.delete(replacedKey).catch((e) => this.o.log?.warn({ err: e, replacedKey }, 'documents: replaced object not deleted'))
    return { path, size_bytes: file.size_bytes, sha256: file.sha256 }
  }

  /**
   * Cuts off a body slower than the minimum rate over each window (a request declaring 10 GB
   * and trickling would otherwise hold its reservation and connection for days): 408.
   */
  private rateGuard(meter: Meter, cut: (err: Error) => void): Cancel {
    const { minBytesPerSecond, rateWindowMs } = this.gate.limits
    if (minBytesPerSecond <= 0) return () => {}
    const least = Math.ceil(minBytesPerSecond * rateWindowMs / 1000)
    let last = 0
    const cancel = every(this.clock, () => {
      const got = meter.bytes - last
      last = meter.bytes
      if (got >= least) return
      cancel()
      cut(new RequestTimeoutError(`Upload too slow: ${got} bytes arrived in the last ${rateWindowMs / 1000} s, at least ${minBytesPerSecond} bytes per second are needed (LINTEL_UPLOAD_MIN_RATE_KB); nothing was stored`))
    }, rateWindowMs * MICROS_PER_MS)
    return cancel
  }

  async link(space: Space, path: string, expiresInSeconds: number): Promise<{ download_link: string; path: string; valid_until: string }> {
    const row = await this.files.get(space, path)
    if (!row) throw new NotFoundError(`File '${path}' not found`)
    const { url, validUntil } = await this.blobs.link(row.object_key, { expiresInSeconds, now: new Date(nowMs(this.clock)), filename: path.split('/').pop() })
    return { download_link: url, path, valid_until: validUntil.toISOString() }
  }

  /** Deletes a file, or a folder with every file in it. */
  async delete(space: Space, path: string): Promise<void> {
    const keys = await this.files.delete(space, path)
    for (const k of keys) await this.blobs.delete(k).catch((err) => this.o.log?.warn({ err, k }, 'documents: object of a deleted file not deleted'))
  }

  /** Removes the objects of a deleted project (its file rows and quota went with it by cascade). */
  async dropProjectSpace(projectId: number): Promise<void> {
    await this.blobs.deletePrefix(this.files.key({ kind: 'project', companyId: 0, projectId }))
  }

  /** Removes the objects of every space whose company or project no longer exists. */
  async sweep(): Promise<string[]> {
    const orphans = await this.files.orphans(await this.blobs.listPrefixes())
    for (const k of orphans) await this.blobs.deletePrefix(k)
    return orphans
  }

  /** Sweeps now and every `periodMs` (failures go to the log); the returned function stops it. */
  sweepEvery(periodMs: number): Cancel {
    const sweep = () => { this.sweep().catch((err) => this.o.log?.warn({ err }, 'documents: sweep failed')) }
    sweep()
    return every(this.clock, sweep, periodMs * MICROS_PER_MS)
  }
}
