// Values in Modbus registers (issue 32 item 3): a register is 16 bits; 32- and 64-bit types
// span 2 or 4 consecutive registers. Byte order is the order of the two bytes inside each
// register as the device means them (Modbus itself is big-endian: `big`); word order is the
// order of the registers (`big`: the most significant register at the lowest address).
// Devices differ in both (e.g. "float32 CDAB" = byte order big, word order little).
// Engineering value = raw * scale + offset; a write inverts it (integers rounded, refused when
// outside the type's range).
import type { DataType, Order } from '../../config/schema.ts'

export const WORDS: Record<DataType, number> = { int16: 1, uint16: 1, int32: 2, uint32: 2, float32: 2, float64: 4 }

export interface Encoding { type: DataType; byte_order: Order; word_order: Order; scale: number; offset: number }

/** The big-endian bytes of the value held by `regs` (register values 0..65535). */
function toBytes(regs: readonly number[], e: Encoding): Buffer {
  const n = regs.length
  const b = Buffer.alloc(n * 2)
  for (let i = 0; i < n; i++) {
    const r = regs[e.word_order === 'big' ? i : n - 1 - i]
    const hi = (r >> 8) & 0xff, lo = r & 0xff
    b[2 * i] = e.byte_order === 'big' ? hi : lo
    b[2 * i + 1] = e.byte_order === 'big' ? lo : hi
  }
  return b
}

function fromBytes(b: Buffer, e: Encoding): number[] {
  const n = b.length / 2
  const regs = new Array<number>(n)
  for (let i = 0; i < n; i++) {
    const hi = e.byte_order === 'big' ? b[2 * i] : b[2 * i + 1]
    const lo = e.byte_order === 'big' ? b[2 * i + 1] : b[2 * i]
    regs[e.word_order === 'big' ? i : n - 1 - i] = (hi << 8) | lo
  }
  return regs
}

/** The raw number of the registers (before scale and offset). */
export function rawValue(regs: readonly number[], e: Encoding): number {
  const b = toBytes(regs, e)
  switch (e.type) {
    case 'int16': return b.readInt16BE(0)
    case 'uint16': return b.readUInt16BE(0)
    case 'int32': return b.readInt32BE(0)
    case 'uint32': return b.readUInt32BE(0)
    case 'float32': return b.readFloatBE(0)
    case 'float64': return b.readDoubleBE(0)
  }
}

/** The engineering value of the registers. */
export function decode(regs: readonly number[], e: Encoding): number {
  const v = rawValue(regs, e) * e.scale + e.offset
  // float32 holds ~7 significant digits: keep them, not the binary noise after them.
  return e.type === 'float32' ? Number(v.toPrecision(7)) : v
}

const RANGE: Partial<Record<DataType, [number, number]>> = { int16: [-32768, 32767], uint16: [0, 65535], int32: [-(2 ** 31), 2 ** 31 - 1], uint32: [0, 2 ** 32 - 1] }

/** The registers of an engineering value; RangeError when the type cannot hold it. */
export function encode(value: number, e: Encoding): number[] {
  let raw = (value - e.offset) / e.scale
  const b = Buffer.alloc(WORDS[e.type] * 2)
  const range = RANGE[e.type]
  if (range) {
    raw = Math.round(raw)
    if (raw < range[0] || raw > range[1]) throw new RangeError(`value ${value} is outside what a ${e.type} register holds (raw ${raw}, range ${range[0]}..${range[1]})`)
  }
  switch (e.type) {
    case 'int16': b.writeInt16BE(raw, 0); break
    case 'uint16': b.writeUInt16BE(raw, 0); break
    case 'int32': b.writeInt32BE(raw, 0); break
    case 'uint32': b.writeUInt32BE(raw, 0); break
    case 'float32':
      if (Math.abs(raw) > 3.4028234663852886e38) throw new RangeError(`value ${value} is outside the float32 range`)
      b.writeFloatBE(raw, 0); break
    case 'float64': b.writeDoubleBE(raw, 0); break
  }
  return fromBytes(b, e)
}
