// The 17 rows of a pointWrite read (project-haystack.org/doc/Ops#pointWrite: level 1-16 and
// 17, the default; levelDis, val, who) from what Lintel knows of a datapoint's priority array:
// its setpoint operations (catalog) in the order they were made. Pure.
//   - an acknowledged write the edge answered carries the array the device reported before
//     writing (engine/setpoints/service.ts): it replaces what was known (levels that change
//     there were set at the device: who unknown), then the write's own level is applied;
//   - an unacknowledged write (POST /v2/datapoint/setpoint without acked) is applied as sent:
//     the edge never answers it;
//   - a write still waiting for the edge, or one that failed, changes no value;
//   - dry runs change nothing.
// `status` tells the state of the last operation at each level (written, sent, requested,
// failed), so a client sees a write that has not reached the device yet. Level 17 (the
// device's relinquish default) is not known to Lintel: null.
import type { SetpointOperation } from '../../../catalog/setpoints.ts'

export interface LevelRow { level: number; levelDis: string; val: number | null; who: string | null; status: string | null }

export const LEVELS = 17

export function levelDis(level: number): string {
  if (level === 1) return 'emergency'
  if (level === 8) return 'manual'
  if (level === 17) return 'default'
  return `level ${level}`
}

/** `ops` newest first, as the catalog lists them. */
export function priorityArray(ops: readonly SetpointOperation[]): LevelRow[] {
  const rows: LevelRow[] = Array.from({ length: LEVELS }, (_, i) => ({ level: i + 1, levelDis: levelDis(i + 1), val: null, who: null, status: null }))
  for (let k = ops.length - 1; k >= 0; k--) {
    const op = ops[k]
    if (op.dryrun || op.priority < 1 || op.priority > 16) continue
    const row = rows[op.priority - 1]
    if (op.status === 'written') {
      const reported = op.log.find((e) => Array.isArray(e.priorityArray))?.priorityArray
      if (reported) {
        for (let i = 0; i < 16; i++) {
          const v = reported[i] ?? null
          if (v !== rows[i].val) { rows[i].val = v; rows[i].who = null; rows[i].status = null }
        }
      }
      row.val = op.value
      row.who = op.requested_by
      row.status = 'written'
    } else if (op.status === 'requested' && !op.acked) {
      row.val = op.value
      row.who = op.requested_by
      row.status = 'sent'
    } else {
      row.status = op.status
    }
  }
  return rows
}
