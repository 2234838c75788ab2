// The durable buffer of the edge agent (issue 32 item 4): every observation line the agent
// publishes is appended here first, on the agent's own disk, and leaves only when the broker
// acknowledged the message that carried it.
//
// On disk (state_dir/buffer/): segments `<seq>.log` (observation lines, each ending in \n,
// appended with write(2): a line written is in the kernel's page cache, so it survives a
// SIGKILL of the agent; the segments are fdatasync'ed once a second for a power loss) and
// beside each an `<seq>.ack` (8 bytes: how many bytes of the segment the broker acknowledged,
// a contiguous prefix). A segment fully acknowledged and no longer written is deleted.
// Recovery at open: every segment is read back, a torn last line (killed mid-write) is cut,
// reading resumes at the acknowledged offset. What was sent but not acknowledged is sent
// again (at least once; the platform stores a repeated observation once per series and time).
//
// Bound: the segments' bytes never exceed max_bytes by more than one segment; beyond it the
// oldest segment is dropped whole, its unacknowledged lines counted (`dropped`) and logged.
//
// Live and backlog: the segment being appended is `live`; closed segments are the backlog.
// The forwarder (forwarder.ts) rotates at every (re)connection, so what was collected during
// an outage is backlog and what comes after is live, and shares its in-flight window.
import { closeSync, fdatasyncSync, ftruncateSync, fstatSync, mkdirSync, openSync, readdirSync, readSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'

export interface Batch {
  seq: number
  start: number
  end: number
  lines: number
  body: Buffer
}

interface Segment {
  seq: number
  fd: number
  ackFd: number
  size: number
  lines: number
  /** acknowledged prefix (bytes, lines) */
  acked: number
  ackedLines: number
  /** handed to the forwarder (bytes from the start) */
  sent: number
  /** batches handed out and not acknowledged yet, in order */
  pending: { start: number; end: number; lines: number; done: boolean }[]
}

export interface DiskBufferOptions {
  dir: string
  maxBytes: number
  /** default: maxBytes / 16, between 1 MiB and 64 MiB */
  segmentBytes?: number
  log?: (msg: string) => void
}

const NL = 0x0a
const READ_CHUNK = 1 << 20

export class DiskBuffer {
  private readonly segments: Segment[] = []
  private pendingText: string[] = []
  private pendingFlush = false
  private readonly segmentBytes: number
  private readonly syncTimer: NodeJS.Timeout
  private readonly listeners = new Set<() => void>()
  /** lines taken (written to disk) since the start, acknowledged, dropped over the bound */
  readonly counters = { taken: 0, acked: 0, dropped: 0, recovered: 0 }
  private nextSeq = 1

  constructor (private readonly o: DiskBufferOptions) {
    this.segmentBytes = o.segmentBytes ?? Math.min(64 << 20, Math.max(1 << 20, Math.floor(o.maxBytes / 16)))
    mkdirSync(o.dir, { recursive: true })
    this.recover()
    this.syncTimer = setInterval(() => this.sync(), 1000)
    this.syncTimer.unref()
  }

  /** Takes one line (without its \n); written to disk in this turn of the event loop. */
  take(line: string): void {
    this.pendingText.push(line)
    if (!this.pendingFlush) {
      this.pendingFlush = true
      setImmediate(() => this.flush())
    }
  }

  /** Writes what was taken in this turn (one write); called by take's schedule and before reads. */
  flush(): void {
    this.pendingFlush = false
    if (this.pendingText.length === 0) return
    const lines = this.pendingText
    this.pendingText = []
    const data = Buffer.from(lines.join('\n') + '\n')
    let seg = this.active()
    if (seg.size > 0 && seg.size + data.length > this.segmentBytes) seg = this.rotate()
    writeSync(seg.fd, data, 0, data.length, seg.size)
    seg.size += data.length
    seg.lines += lines.length
    this.counters.taken += lines.length
    this.enforceBound()
    for (const l of this.listeners) l()
  }

  /** Called after every flush (new lines to send). */
  onData(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Closes the live segment: what it holds becomes backlog. */
  rotate(): Segment {
    const last = this.segments.at(-1)
    if (last && last.size === 0) return last
    const seg = this.openSegment(this.nextSeq++, true)
    this.segments.push(seg)
    this.collect()
    return seg
  }

  /** The next batch of unsent lines, oldest first, from the live segment or from the backlog. */
  nextBatch(from: 'live' | 'backlog', maxLines: number): Batch | undefined {
    this.flush()
    const list = from === 'live' ? this.segments.slice(-1) : this.segments.slice(0, -1)
    for (const seg of list) {
      if (seg.sent >= seg.size) continue
      const batch = this.read(seg, maxLines)
      seg.pending.push({ start: batch.start, end: batch.end, lines: batch.lines, done: false })
      seg.sent = batch.end
      return batch
    }
    return undefined
  }

  /** The broker acknowledged `batch`: advance the segment's acknowledged prefix (persisted). */
  ack(batch: Batch): void {
    const seg = this.segments.find((s) => s.seq === batch.seq)
    if (!seg) return // dropped over the bound meanwhile
    // Start and end: after a rewind() the same offset may start a longer batch, and the old
    // message, still in the MQTT client's store, is acknowledged late for its own lines only.
    const p = seg.pending.find((x) => x.start === batch.start && x.end === batch.end)
    if (!p) return
    p.done = true
    let moved = false
    while (seg.pending.length > 0 && seg.pending[0].done) {
      const first = seg.pending.shift()!
      seg.acked = first.end
      seg.ackedLines += first.lines
      this.counters.acked += first.lines
      moved = true
    }
    if (moved) {
      const b = Buffer.alloc(8)
      b.writeBigUInt64LE(BigInt(seg.acked))
      writeSync(seg.ackFd, b, 0, 8, 0)
      this.collect()
    }
  }

  /** Everything handed out and not acknowledged is to be sent again (a new session, a lost connection). */
  rewind(): void {
    for (const s of this.segments) { s.sent = s.acked; s.pending = [] }
  }

  /** Lines not acknowledged yet (written or waiting for the write). */
  depth(): number {
    let n = this.pendingText.length
    for (const s of this.segments) n += s.lines - s.ackedLines
    return n
  }

  bytes(): number {
    return this.segments.reduce((n, s) => n + s.size, 0)
  }

  /** The time (µs since the epoch) of the oldest unacknowledged line, from its timestamp; undefined when empty. */
  oldestTimeUs(): number | undefined {
    this.flush()
    for (const s of this.segments) {
      if (s.acked >= s.size) continue
      const b = Buffer.alloc(Math.min(4096, s.size - s.acked))
      readSync(s.fd, b, 0, b.length, s.acked)
      const end = b.indexOf(NL)
      const line = b.subarray(0, end < 0 ? b.length : end).toString()
      const ns = line.slice(line.lastIndexOf(' ') + 1)
      return ns.length >= 16 ? Math.floor(Number(ns) / 1000) : Number(ns) * 1e6
    }
    return undefined
  }

  sync(): void {
    for (const s of this.segments) { try { fdatasyncSync(s.fd) } catch { /* closed meanwhile */ } }
  }

  close(): void {
    this.flush()
    clearInterval(this.syncTimer)
    this.sync()
    for (const s of this.segments) { closeSync(s.fd); closeSync(s.ackFd) }
    this.segments.length = 0
  }

  private active(): Segment {
    return this.segments.at(-1) ?? this.rotate()
  }

  private read(seg: Segment, maxLines: number): Batch {
    const len = Math.min(READ_CHUNK, seg.size - seg.sent)
    const buf = Buffer.allocUnsafe(len)
    readSync(seg.fd, buf, 0, len, seg.sent)
    let lines = 0
    let cut = 0
    for (let i = buf.indexOf(NL); i >= 0 && lines < maxLines; i = buf.indexOf(NL, i + 1)) { lines++; cut = i + 1 }
    // A single line longer than the chunk cannot happen: lines are at most a few hundred bytes.
    return { seq: seg.seq, start: seg.sent, end: seg.sent + cut, lines, body: buf.subarray(0, cut - 1) }
  }

  /** Deletes closed segments that are fully acknowledged. */
  private collect(): void {
    while (this.segments.length > 1 && this.segments[0].acked >= this.segments[0].size) this.remove(this.segments.shift()!)
  }

  private enforceBound(): void {
    while (this.segments.length > 1 && this.bytes() > this.o.maxBytes) {
      const seg = this.segments.shift()!
      const lost = seg.lines - seg.ackedLines
      this.counters.dropped += lost
      this.o.log?.(`edge buffer: over its bound of ${this.o.maxBytes} bytes, dropped the oldest ${lost} observation(s) (${this.counters.dropped} since the start)`)
      this.remove(seg)
    }
  }

  private remove(seg: Segment): void {
    closeSync(seg.fd)
    closeSync(seg.ackFd)
    unlinkSync(join(this.o.dir, `${seg.seq}.log`))
    unlinkSync(join(this.o.dir, `${seg.seq}.ack`))
  }

  private openSegment(seq: number, fresh: boolean): Segment {
    const fd = openSync(join(this.o.dir, `${seq}.log`), fresh ? 'w+' : 'r+')
    const ackFd = openSync(join(this.o.dir, `${seq}.ack`), fresh ? 'w+' : 'a+')
    return { seq, fd, ackFd, size: 0, lines: 0, acked: 0, ackedLines: 0, sent: 0, pending: [] }
  }

  private recover(): void {
    const seqs = readdirSync(this.o.dir).filter((f) => /^\d+\.log$/.test(f)).map((f) => Number(f.slice(0, -4))).sort((a, b) => a - b)
    for (const seq of seqs) {
      const seg = this.openSegment(seq, false)
      closeSync(seg.ackFd)
      seg.ackFd = openSync(join(this.o.dir, `${seq}.ack`), 'r+')
      let size = fstatSync(seg.fd).size
      const a = Buffer.alloc(8)
      const acked = readSync(seg.ackFd, a, 0, 8, 0) === 8 ? Number(a.readBigUInt64LE()) : 0
      // Count lines; cut a torn last line (the agent was killed in the middle of a write).
      let lines = 0, ackedLines = 0, lastNl = -1
      const buf = Buffer.allocUnsafe(READ_CHUNK)
      for (let pos = 0; pos < size; pos += READ_CHUNK) {
        const n = readSync(seg.fd, buf, 0, Math.min(READ_CHUNK, size - pos), pos)
        for (let i = buf.indexOf(NL); i >= 0 && i < n; i = buf.indexOf(NL, i + 1)) {
          lines++
          if (pos + i < acked) ackedLines++
          lastNl = pos + i
        }
      }
      if (lastNl + 1 < size) { ftruncateSync(seg.fd, lastNl + 1); size = lastNl + 1 }
      Object.assign(seg, { size, lines, acked: Math.min(acked, size), ackedLines, sent: Math.min(acked, size) })
      this.counters.recovered += lines - ackedLines
      this.segments.push(seg)
      this.nextSeq = seq + 1
    }
    this.collect()
    // Appending continues in a new segment: what was recovered is backlog.
    this.rotate()
  }
}
