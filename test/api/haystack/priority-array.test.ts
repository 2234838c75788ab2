// The pointWrite read's 17 rows (api/haystack/his/priority-array.ts) from setpoint operations.
import t from 'tap'
import type { SetpointOperation } from '../../../catalog/setpoints.ts'
import { priorityArray } from '../../../api/haystack/his/priority-array.ts'

let n = 0
function op(o: Partial<SetpointOperation>): SetpointOperation {
  n++
  return {
    reference: `r${n}`, project_id: 1, dataPointID: 'sp', value: 20, priority: 8, acked: true, dryrun: false, keep_out_of_service: false,
    requested_by: 'ann@example.com', created_at: n, deadline: null, status: 'written', old_value: null, log: [], ...o,
  }
}
const arrayOf = (a: Record<number, number>) => Array.from({ length: 16 }, (_, i) => a[i + 1] ?? null)

t.test('17 levels, level 17 the default, known to nobody', async (t) => {
  const rows = priorityArray([])
  t.equal(rows.length, 17)
  t.same(rows.map((r) => r.levelDis).filter((d) => !d.startsWith('level ')), ['emergency', 'manual', 'default'])
  t.same(rows[16], { level: 17, levelDis: 'default', val: null, who: null, status: null })
})

t.test('written, sent, pending, failed and dry runs', async (t) => {
  // newest first
  const rows = priorityArray([
    op({ priority: 12, value: 5, status: 'requested', acked: true, requested_by: 'bob' }),
    op({ priority: 10, value: 3, dryrun: true }),
    op({ priority: 9, value: 9, status: 'failed' }),
    op({ priority: 13, value: 18, status: 'requested', acked: false, requested_by: 'cid' }),
    op({ priority: 8, value: 21.5, log: [{ msg: 'w', status: 'written', time: 't', priorityArray: arrayOf({ 8: 19, 16: 15 }) }] }),
  ])
  t.same(rows[7], { level: 8, levelDis: 'manual', val: 21.5, who: 'ann@example.com', status: 'written' })
  t.same(rows[15], { level: 16, levelDis: 'level 16', val: 15, who: null, status: null }, 'set at the device: who unknown')
  t.same(rows[12], { level: 13, levelDis: 'level 13', val: 18, who: 'cid', status: 'sent' }, 'unacknowledged: applied as sent')
  t.same(rows[8], { level: 9, levelDis: 'level 9', val: null, who: null, status: 'failed' })
  t.same(rows[9].status, null, 'a dry run changes nothing')
  t.same(rows[11], { level: 12, levelDis: 'level 12', val: null, who: null, status: 'requested' }, 'waiting for the edge: no value yet')
})

t.test('a release writes null; a later report replaces older knowledge', async (t) => {
  const rows = priorityArray([
    op({ priority: 8, value: null, requested_by: 'bob', log: [{ msg: 'w', status: 'written', time: 't', priorityArray: arrayOf({ 8: 21, 14: 2 }) }] }),
    op({ priority: 8, value: 21 }),
    op({ priority: 14, value: 7 }),
  ])
  t.same(rows[7], { level: 8, levelDis: 'manual', val: null, who: 'bob', status: 'written' })
  t.same(rows[13], { level: 14, levelDis: 'level 14', val: 2, who: null, status: null }, 'the device reported 2, not our 7')
})
