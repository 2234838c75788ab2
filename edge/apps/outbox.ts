// The edge's durable outbox of app messages (issue 31 item 3): every APPLOG and APPSTATE is
// appended to `outbox.ndjson` in the state directory before it is sent, so what the broker did
// not acknowledge survives a lost connection and the agent's own restart (kill -9 included:
// an append is one write(2), in the page cache the moment it returns). `outbox.sent` holds
// how many lines the broker acknowledged, in order; they are sent again from there after a
// restart (the platform stores each (app_id, seq) once). When everything is acknowledged and
// the file has grown, it is emptied (the apps' seq counters live in their own files).
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Lines after which an acknowledged outbox is emptied. */
const COMPACT_LINES = 10_000

export class Outbox {
  private readonly file: string
  private readonly marker: string
  /** Lines in the file, and how many of them the broker acknowledged. */
  private total = 0
  private sent = 0
  /** The unacknowledged lines (file lines sent..total), oldest first. */
  private pending: string[] = []
  private readonly waiting = new Set<() => void>()

  /** `beforeCompact` runs before the file is emptied (the apps persist their seq counters). */
  constructor (dir: string, private readonly beforeCompact: () => void = () => {}) {
    this.file = join(dir, 'outbox.ndjson')
    this.marker = join(dir, 'outbox.sent')
    const lines = existsSync(this.file) ? readFileSync(this.file, 'utf8').split('\n') : []
    // A line cut by a crash in the middle of an append is dropped (it was never sent).
    const whole = lines.filter((l, i) => l.length > 0 && (i < lines.length - 1 || isJson(l)))
    this.total = whole.length
    const mark = existsSync(this.marker) ? Number(readFileSync(this.marker, 'utf8').trim()) : 0
    this.sent = Number.isInteger(mark) && mark >= 0 ? Math.min(mark, this.total) : 0
    this.pending = whole.slice(this.sent)
    this.all = whole
  }

  /** Every line read at start (for the seq counters), then released. */
  private all: string[] | undefined

  /** The messages in the file when the outbox was opened (parsed), once. */
  takeHistory(): Record<string, unknown>[] {
    const out = (this.all ?? []).map((l) => JSON.parse(l) as Record<string, unknown>)
    this.all = undefined
    return out
  }

  append(message: object): void {
    const line = JSON.stringify(message)
    appendFileSync(this.file, line + '\n')
    this.total++
    this.pending.push(line)
    for (const w of this.waiting) w()
  }

  /** Unacknowledged lines, oldest first (index 0 is the next one to acknowledge). */
  peek(from: number, count: number): string[] {
    return this.pending.slice(from, from + count)
  }

  get size(): number { return this.pending.length }

  /** The first `n` pending lines were acknowledged by the broker. */
  ack(n: number): void {
    if (n <= 0) return
    this.pending.splice(0, n)
    this.sent += n
    if (this.pending.length === 0 && this.total >= COMPACT_LINES) {
      this.beforeCompact()
      writeFileSync(this.file, '')
      this.total = 0
      this.sent = 0
    }
    const tmp = this.marker + '.tmp'
    writeFileSync(tmp, String(this.sent))
    renameSync(tmp, this.marker)
  }

  /** Runs `fn` on every append (the sender wakes up); returns the unsubscribe. */
  onAppend(fn: () => void): () => void {
    this.waiting.add(fn)
    return () => this.waiting.delete(fn)
  }
}

function isJson(line: string): boolean {
  try { JSON.parse(line); return true } catch { return false }
}
