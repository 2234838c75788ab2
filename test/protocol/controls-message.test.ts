import t from 'tap'
import { isSetpointMessage, parseControlsMessage } from '../../protocol/controls-message.ts'

const parse = (x: unknown, maxBytes?: number) =>
  parseControlsMessage(Buffer.from(typeof x === 'string' ? x : JSON.stringify(x)), maxBytes === undefined ? {} : { maxBytes })
const error = (x: unknown, maxBytes?: number): string => {
  const r = parse(x, maxBytes)
  return r.ok ? 'accepted' : r.error
}

const SPT = { type: 'NEWSPT', swop_version: 0.1, datapoint: 'AHU1/supply/setpoint', value: 21.5, priority: 13 }

t.test('setpoint message', async t => {
  const r = parse({ ...SPT, reference: 'abc', dryrun: false })
  t.ok(r.ok)
  if (!r.ok) return
  t.same(r.message, { ...SPT, reference: 'abc', dryrun: false })
  t.ok(isSetpointMessage(r.message))
  for (const priority of [1, 8, 16]) t.ok(parse({ ...SPT, priority }).ok, `priority ${priority}`)
  for (const value of [0, -5, 1e300, null]) t.ok(parse({ ...SPT, value }).ok, `value ${value}`)
  t.ok(parse({ ...SPT, swop_version: 1 }).ok)
})

t.test('setpoint errors', async t => {
  const { swop_version: _s, ...noVersion } = SPT
  const { value: _v, ...noValue } = SPT
  const { priority: _p, ...noPriority } = SPT
  const { datapoint: _d, ...noDatapoint } = SPT
  const cases: [unknown, RegExp][] = [
    [noVersion, /NEWSPT: swop_version must be a number/],
    [{ ...SPT, swop_version: '0.1' }, /swop_version/],
    [noDatapoint, /datapoint must be a non-empty string/],
    [{ ...SPT, datapoint: '' }, /datapoint/],
    [{ ...SPT, datapoint: 7 }, /datapoint/],
    [{ ...SPT, datapoint: 'x'.repeat(1001) }, /longer than 1000/],
    [noValue, /value is missing/],
    [{ ...SPT, value: '21.5' }, /value must be a number or null/],
    [{ ...SPT, value: 'null' }, /value must be a number or null/],
    [{ ...SPT, value: true }, /value/],
    [noPriority, /priority must be an integer from 1 to 16/],
    [{ ...SPT, priority: 0 }, /priority/],
    [{ ...SPT, priority: 17 }, /priority/],
    [{ ...SPT, priority: 13.5 }, /priority/],
    [{ ...SPT, priority: '13' }, /priority/],
  ]
  for (const [msg, re] of cases) t.match(error(msg), re, JSON.stringify(msg).slice(0, 80))
  t.match(error('{"type":"NEWSPT","swop_version":0.1,"datapoint":"a","value":1e999,"priority":13}'), /value must be a number/)
})

t.test('other protocol messages are opaque', async t => {
  const r = parse({ type: 'SPTACK', reference: 'abc', status: 'written' })
  t.ok(r.ok)
  if (r.ok) {
    t.same(r.message, { type: 'SPTACK', reference: 'abc', status: 'written' })
    t.notOk(isSetpointMessage(r.message))
  }
  t.ok(parse({ type: 'newspt' }).ok, 'type is case-sensitive: lower-case newspt is opaque')
})

t.test('payload errors', async t => {
  t.match(error(''), /empty payload/)
  t.match(error('{"type":'), /invalid JSON/)
  t.match(error('[1]'), /must be a JSON object/)
  t.match(error('null'), /must be a JSON object/)
  t.match(error({}), /type must be a non-empty string/)
  t.match(error({ type: '' }), /type must be/)
  t.match(error({ type: 5 }), /type must be/)
  t.match(error(SPT, 20), /larger than 20 bytes/)
  t.ok(parse('\ufeff' + JSON.stringify(SPT)).ok, 'BOM tolerated')
})
