// The QuestDB store's write encoding: ILP protocol v2 lines of the one table design
// (questdb-sql.ts createTableSql), written straight into a Buffer:
//   <table>,series=<id> value==<0x10><float64 LE> <stored µs>t\n
// This is byte for byte what @questdb/nodejs-client's Sender writes with protocol_version=2
// (binary doubles, designated timestamp in µs with the `t` suffix), without its per-row
// generality (name checks, escaping, BigInt time conversion): the Sender's encoder took
// ~3-4.5 µs a row, the bound of the scaled write path (issue 17 item 5); this one ~0.1-0.3.
// The caller has checked every row (packForQuestdb): integer series, finite value, storable
// time; the table name is a plain identifier (tableName), so nothing needs escaping.
import type { Observation } from './port.ts'
import { MIN_REAL_TIME, SHIFT, isSeriesId } from './questdb-sql.ts'

const SHIFT_HI = Number(SHIFT / 1_000_000_000n)
const SHIFT_LO = Number(SHIFT % 1_000_000_000n)
const E9 = 1_000_000_000
/** Room for one row besides the table prefix: series (≤ 16 digits), value, time (≤ 20 digits). */
const ROW_MAX = 64

export class IlpEncoder {
  private buf: Buffer
  private pos = 0
  private readonly prefix: Buffer

  constructor (table: string, initialBytes = 1 << 20) {
    this.prefix = Buffer.from(`${table},series=`, 'latin1')
    this.buf = Buffer.allocUnsafe(initialBytes)
  }

  get bytes(): number { return this.pos }

  /** Appends rows [from, to) of packed (series, time, value) triples. */
  encode(data: Float64Array, from: number, to: number): void {
    this.reserve((to - from) * (ROW_MAX + this.prefix.length))
    const buf = this.buf
    const prefix = this.prefix
    let p = this.pos
    for (let i = from; i < to; i++) {
      p += prefix.copy(buf, p)
      p = writeUint(buf, p, data[3 * i])
      buf[p++] = 0x20 // ' '
      buf[p++] = 0x76; buf[p++] = 0x61; buf[p++] = 0x6c; buf[p++] = 0x75; buf[p++] = 0x65 // value
      buf[p++] = 0x3d; buf[p++] = 0x3d; buf[p++] = 0x10 // '==' DOUBLE
      p = buf.writeDoubleLE(data[3 * i + 2], p)
      buf[p++] = 0x20
      p = writeStoredTime(buf, p, data[3 * i + 1])
      buf[p++] = 0x74 // 't'
      buf[p++] = 0x0a
    }
    this.pos = p
  }

  /** The encoded bytes (a copy), and a fresh start. */
  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.pos))
    this.pos = 0
    return out
  }

  reset(): void {
    this.pos = 0
  }

  private reserve(more: number): void {
    if (this.pos + more <= this.buf.length) return
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + more))
    this.buf.copy(next, 0, 0, this.pos)
    this.buf = next
  }
}

/** Decimal digits of a non-negative safe integer. */
function writeUint(buf: Buffer, p: number, n: number): number {
  if (n < 10) { buf[p] = 48 + n; return p + 1 }
  let digits = 0
  for (let x = n; x >= 1; x = Math.floor(x / 10)) digits++
  let end = p + digits
  for (let i = end - 1; i >= p; i--) {
    const q = Math.floor(n / 10)
    buf[i] = 48 + (n - q * 10)
    n = q
  }
  return end
}

/**
 * The stored time (real µs + SHIFT, beyond 2^53) in decimal, from two exact halves:
 * t = hi·10^9 + lo with 0 ≤ lo < 10^9, so t + SHIFT never needs more than a double's
 * integer precision on either side.
 */
function writeStoredTime(buf: Buffer, p: number, t: number): number {
  const hi0 = Math.floor(t / E9)
  let lo = t - hi0 * E9 + SHIFT_LO
  let hi = hi0 + SHIFT_HI
  if (lo >= E9) { lo -= E9; hi++ }
  if (hi === 0) return writeUint(buf, p, lo)
  p = writeUint(buf, p, hi)
  for (let i = p + 8; i >= p; i--) {
    const q = Math.floor(lo / 10)
    buf[i] = 48 + (lo - q * 10)
    lo = q
  }
  return p + 9
}

/** Observations QuestDB can store, as [series, time, value] triples; the rest is counted. */
export function packForQuestdb(batch: readonly Observation[]): { data: Float64Array; rows: number; dropped: number } {
  const data = new Float64Array(batch.length * 3)
  let n = 0
  for (let i = 0; i < batch.length; i++) {
    const o = batch[i]
    const v = o.value
    let t = o.time
    // NaN and +-Infinity read back as null in QuestDB; times outside the storable range
    // (before 1570, or beyond safe integers) and non-integer series ids cannot be keys.
    if (!Number.isFinite(v) || !Number.isFinite(t) || !isSeriesId(o.series)) continue
    if (!Number.isInteger(t)) t = Math.floor(t)
    if (t < MIN_REAL_TIME || !Number.isSafeInteger(t)) continue
    data[n++] = o.series
    data[n++] = t
    data[n++] = v
  }
  const rows = n / 3
  return { data: n === data.length ? data : data.slice(0, n), rows, dropped: batch.length - rows }
}
