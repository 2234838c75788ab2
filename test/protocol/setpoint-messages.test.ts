// The setpoint messages of the controls protocol (protocol/setpoint-messages.ts): NEWSPT as the
// platform builds it passes the generic CONTROLS validation; SPTACK is read strictly.
import t from 'tap'
import { parseControlsMessage, isSetpointMessage } from '../../protocol/controls-message.ts'
import { datapointOf, newSetpoint, readNewSetpoint, readSetpointAck, setpointAck } from '../../protocol/setpoint-messages.ts'

const NULLS = new Array(16).fill(null)

t.test('NEWSPT round trip', async (t) => {
  const m = newSetpoint({ datapoint: 'ahu 1', value: null, priority: 8, reference: 'r1', acked: true, dryrun: true, keep_out_of_service: false })
  t.same(Object.keys(m), ['type', 'swop_version', 'datapoint', 'value', 'priority', 'reference', 'acked', 'dryrun', 'keep_out_of_service'])
  const parsed = parseControlsMessage(Buffer.from(JSON.stringify(m)))
  t.ok(parsed.ok && isSetpointMessage(parsed.message))
  if (parsed.ok && isSetpointMessage(parsed.message)) t.same(readNewSetpoint(parsed.message), m)
  // Spec 3's bare message: no options means an unacknowledged plain write.
  const bare = parseControlsMessage(Buffer.from('{"type":"NEWSPT","swop_version":0.1,"datapoint":"x","value":1,"priority":13}'))
  if (bare.ok && isSetpointMessage(bare.message)) t.match(readNewSetpoint(bare.message), { reference: '', acked: false, dryrun: false, keep_out_of_service: false })
  else t.fail('the spec\'s example is valid')
  t.equal(datapointOf(m), 'ahu 1')
  t.equal(datapointOf({ type: 'APPLOG', datapoint: 'x' }), undefined, 'only setpoint messages name a datapoint')
})

t.test('SPTACK', async (t) => {
  const ok = (m: object) => readSetpointAck({ ...m } as Record<string, unknown>)
  const a = setpointAck({ reference: 'r', datapoint: 'd', result: 'written', priorityArray: NULLS, present_value: 20, effective: true })
  t.match(ok(a), { ok: true })
  t.equal(datapointOf(a as never), 'd')
  t.match(ok(setpointAck({ reference: 'r', datapoint: 'd', result: 'accepted' })), { ok: true })
  t.match(ok(setpointAck({ reference: 'r', datapoint: 'd', result: 'refused', reason: 'no' })), { ok: true })
  const bad: [object, RegExp][] = [
    [{ type: 'NEWSPT' }, /not an SPTACK/],
    [{ type: 'SPTACK', datapoint: 'd', result: 'accepted' }, /reference/],
    [{ type: 'SPTACK', reference: 'r', result: 'accepted' }, /datapoint/],
    [{ type: 'SPTACK', reference: 'r', datapoint: 'd', result: 'maybe' }, /result/],
    [{ type: 'SPTACK', reference: 'r', datapoint: 'd', result: 'written', priorityArray: NULLS.slice(1) }, /priorityArray/],
    [{ type: 'SPTACK', reference: 'r', datapoint: 'd', result: 'written', priorityArray: [...NULLS.slice(1), 'x'] }, /priorityArray/],
    [{ type: 'SPTACK', reference: 'r', datapoint: 'd', result: 'written', priorityArray: NULLS, present_value: 'x' }, /present_value/],
    [{ type: 'SPTACK', reference: 'r', datapoint: 'd', result: 'refused' }, /reason/],
  ]
  for (const [m, err] of bad) t.match(ok(m), { ok: false, error: err }, JSON.stringify(m))
})
