// Value encoding of one Kafka message of the observation log: an 8-byte header (magic
// "LOB" + format version 1, then the observation count, both u32 little-endian) followed by
// the observations as little-endian float64 triples (series, time, value): 24 bytes per
// observation. Series ids and microsecond times are integers below 2^53, exact in float64.
// Measured on this machine against JSON, 1000-observation batches: ~90 M obs/s encode and
// ~50 M obs/s decode at 24 B/obs, vs JSON objects ~4 M/s both ways at 54 B/obs and a flat
// JSON number array 6-9 M/s at 28 B/obs; Kafka itself moves ~2 M obs/s, so JSON would be
// the bottleneck and the binary form is not.
// The project is the message key, not part of the value.
import { endianness } from 'node:os'
import type { Observation } from '../store/port.ts'

export const CODEC_MAGIC = 0x01424f4c // bytes "LOB" + version 1, little-endian
const HEADER = 8
const LE = endianness() === 'LE'

/** Encodes batch[start, end) into one message value. */
export function encodeObservations(batch: readonly Observation[], start = 0, end = batch.length): Buffer {
  const n = end - start
  const ab = new ArrayBuffer(HEADER + n * 24)
  const dv = new DataView(ab)
  dv.setUint32(0, CODEC_MAGIC, true)
  dv.setUint32(4, n, true)
  if (LE) {
    const f = new Float64Array(ab, HEADER, n * 3)
    for (let i = start, o = 0; i < end; i++) {
      const x = batch[i]
      f[o++] = x.series
      f[o++] = x.time
      f[o++] = x.value
    }
  } else {
    for (let i = start, o = HEADER; i < end; i++, o += 24) {
      const x = batch[i]
      dv.setFloat64(o, x.series, true)
      dv.setFloat64(o + 8, x.time, true)
      dv.setFloat64(o + 16, x.value, true)
    }
  }
  return Buffer.from(ab)
}

/** Decodes one message value; throws on anything that is not this format. */
export function decodeObservations(buf: Uint8Array): Observation[] {
  if (buf.byteLength < HEADER) throw new Error(`observation log message of ${buf.byteLength} bytes is shorter than its header`)
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
  const magic = dv.getUint32(0, true)
  if (magic !== CODEC_MAGIC) throw new Error(`observation log message has an unknown format (magic 0x${magic.toString(16)})`)
  const n = dv.getUint32(4, true)
  if (buf.byteLength !== HEADER + n * 24) throw new Error(`observation log message announces ${n} observations but holds ${buf.byteLength - HEADER} bytes`)
  const out = new Array<Observation>(n)
  if (LE) {
    const at = buf.byteOffset + HEADER
    // Float64Array needs 8-byte alignment: copy when Kafka's buffer is not aligned.
    let f: Float64Array
    if (at % 8 === 0) f = new Float64Array(buf.buffer, at, n * 3)
    else {
      const copy = new Uint8Array(n * 24)
      copy.set(buf.subarray(HEADER))
      f = new Float64Array(copy.buffer)
    }
    for (let i = 0, o = 0; i < n; i++, o += 3) out[i] = { series: f[o], time: f[o + 1], value: f[o + 2] }
  } else {
    for (let i = 0, o = HEADER; i < n; i++, o += 24) out[i] = { series: dv.getFloat64(o, true), time: dv.getFloat64(o + 8, true), value: dv.getFloat64(o + 16, true) }
  }
  return out
}
