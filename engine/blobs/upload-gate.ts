// Shared-resource bounds of document uploads on one node (issue 29): an upload is admitted
// before its first byte is read, and holds a reservation of the bytes it writes.
//
// - Concurrency: at most `perCompany` uploads of one company at once (its company space and
//   all its projects; 429 with Retry-After beyond), at most `perNode` on this node (503 with
//   Retry-After). The S3 adapter holds ~(parallel + 1) parts of memory per upload, so
//   `perNode` also bounds that memory.
// - Quota: an upload's reservation grows before each chunk is passed to the storage and is
//   checked against the space's quota together with the committed use and every other
//   running upload's reservation in that space; the bytes written by running uploads of a
//   space (on disk or in the storage's temporary parts) therefore never exceed what its quota
//   leaves free. A declared size (Content-Length) is reserved up front, so a concurrent upload
//   that cannot fit is refused before it streams. The catalog's commit still decides exactly
//   (uploads on other nodes are not seen here).
// - Temporary space: the reservations of all running uploads of the node together stay within
//   `tempBytes` (503 with Retry-After beyond: retrying helps once others finish).
// Every reservation is released when its upload ends, however it ends.
import type { Space } from '../../catalog/files.ts'
import { OverloadedError, TooManyRequestsError } from '../../core/errors.ts'

export interface UploadLimits {
  /** Uploads of one company running at once (LINTEL_UPLOADS_PER_COMPANY, default 4). */
  perCompany: number
  /** Uploads running at once on this node (LINTEL_UPLOADS_PER_NODE, default 8). */
  perNode: number
  /** Bytes all running uploads of this node may hold before they are committed (LINTEL_UPLOAD_TEMP_MB, default 8 GiB). */
  tempBytes: number
  /** Slowest body accepted, bytes per second, measured per window (LINTEL_UPLOAD_MIN_RATE_KB, default 16 KiB/s). */
  minBytesPerSecond: number
  /** Length of that window, ms (LINTEL_UPLOAD_RATE_WINDOW_S, default 30 s). */
  rateWindowMs: number
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  perCompany: 4, perNode: 8, tempBytes: 8 * 1024 ** 3, minBytesPerSecond: 16 * 1024, rateWindowMs: 30_000,
}

/** Seconds a refused client is told to wait: about the time an upload takes to finish. */
const RETRY_AFTER_MS = 5_000

interface SpaceState { reserved: number; committed: number; tickets: number }

/** One admitted upload: its reservation and its view of the space's commits since it began. */
export class UploadTicket {
  reserved = 0
  private released = false

  constructor (private readonly gate: UploadGate, readonly company: number, readonly space: string, readonly committedAtStart: number) {}

  /** Bytes committed in this space through this node since the upload began (net of replaced files). */
  committedSince(): number {
    return this.gate.spaceState(this.space).committed - this.committedAtStart
  }

  /** Bytes the other running uploads of this space have reserved. */
  othersReserved(): number {
    return this.gate.spaceState(this.space).reserved - this.reserved
  }

  /** Grows the reservation to `bytes` (never shrinks it); 503 when the node's temporary space is full. */
  reserve(bytes: number): void {
    if (bytes <= this.reserved) return
    this.gate.grow(this, bytes - this.reserved)
  }

  release(): void {
    if (this.released) return
    this.released = true
    this.gate.end(this)
  }
}

export class UploadGate {
  private readonly spaces = new Map<string, SpaceState>()
  private readonly companies = new Map<number, number>()
  private running = 0
  private held = 0

  constructor (readonly limits: UploadLimits = DEFAULT_UPLOAD_LIMITS) {}

  /** Admits an upload into `space` (whose key is `key`, FilesPort.key) or refuses it before anything is read. */
  admit(space: Space, key: string): UploadTicket {
    const now = this.companies.get(space.companyId) ?? 0
    if (now >= this.limits.perCompany) {
      throw new TooManyRequestsError(`Too many uploads: company ${space.companyId} already has ${now} uploads running, at most ${this.limits.perCompany} at once (LINTEL_UPLOADS_PER_COMPANY); retry when one has finished`, RETRY_AFTER_MS)
    }
    if (this.running >= this.limits.perNode) {
      throw new OverloadedError(`Too many uploads on this server: ${this.running} running, at most ${this.limits.perNode} at once (LINTEL_UPLOADS_PER_NODE); retry later`, { retryAfterMs: RETRY_AFTER_MS })
    }
    this.companies.set(space.companyId, now + 1)
    this.running++
    const state = this.spaceState(key)
    state.tickets++
    return new UploadTicket(this, space.companyId, key, state.committed)
  }

  /** Records a commit through this node: `delta` bytes more in the space `key` (negative when a replace shrank it). */
  committed(key: string, delta: number): void {
    const s = this.spaces.get(key)
    if (s) s.committed += delta // no upload running there: nobody compares against it
  }

  /** What the node's running uploads hold and how many there are (metrics, tests). */
  usage(): { running: number; heldBytes: number } {
    return { running: this.running, heldBytes: this.held }
  }

  /** @internal */
  spaceState(key: string): SpaceState {
    let s = this.spaces.get(key)
    if (!s) this.spaces.set(key, s = { reserved: 0, committed: 0, tickets: 0 })
    return s
  }

  /** @internal */
  grow(t: UploadTicket, more: number): void {
    if (this.held + more > this.limits.tempBytes) {
      throw new OverloadedError(`Upload space of this server is full: running uploads hold ${this.held} bytes, at most ${this.limits.tempBytes} (LINTEL_UPLOAD_TEMP_MB); nothing was stored, retry later`, { retryAfterMs: RETRY_AFTER_MS })
    }
    this.held += more
    t.reserved += more
    this.spaceState(t.space).reserved += more
  }

  /** @internal */
  end(t: UploadTicket): void {
    this.held -= t.reserved
    const s = this.spaceState(t.space)
    s.reserved -= t.reserved
    t.reserved = 0
    this.running--
    const n = (this.companies.get(t.company) ?? 1) - 1
    if (n === 0) this.companies.delete(t.company)
    else this.companies.set(t.company, n)
    // A space's counters live while uploads run in it (so the map stays as small as they are).
    if (--s.tickets === 0) this.spaces.delete(t.space)
  }
}
