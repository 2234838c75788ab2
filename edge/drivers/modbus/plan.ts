// Poll plan of a Modbus device (issue 32 item 3): the points grouped per unit id and register
// kind into ranges of consecutive addresses, each read with one request of at most 125
// registers (2,000 coils or discrete inputs), the protocol's limits. Only contiguous (or
// overlapping) addresses are merged: reading across a gap could hit an address the device
// does not map and fail the whole request.
import type { ModbusPointConfig, RegisterKind } from '../../config/schema.ts'
import { WORDS } from './codec.ts'

export const MAX_REGISTERS = 125
export const MAX_BITS = 2000

export interface Range { unitId: number; kind: RegisterKind; address: number; length: number; points: ModbusPointConfig[] }

export const width = (p: ModbusPointConfig): number => (p.kind === 'coil' || p.kind === 'discrete' ? 1 : WORDS[p.type])

export function pollPlan(points: readonly ModbusPointConfig[]): Range[] {
  const sorted = [...points].sort((a, b) => a.unit_id - b.unit_id || a.kind.localeCompare(b.kind) || a.address - b.address)
  const ranges: Range[] = []
  let cur: Range | undefined
  for (const p of sorted) {
    const max = p.kind === 'coil' || p.kind === 'discrete' ? MAX_BITS : MAX_REGISTERS
    const end = p.address + width(p)
    if (cur && cur.unitId === p.unit_id && cur.kind === p.kind && p.address <= cur.address + cur.length && Math.max(end, cur.address + cur.length) - cur.address <= max) {
      cur.length = Math.max(end, cur.address + cur.length) - cur.address
      cur.points.push(p)
    } else {
      cur = { unitId: p.unit_id, kind: p.kind, address: p.address, length: width(p), points: [p] }
      ranges.push(cur)
    }
  }
  return ranges
}
