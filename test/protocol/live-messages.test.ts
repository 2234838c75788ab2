// The live subscription protocol (protocol/live-messages.ts): client messages read strictly,
// with the field and the reason in the error; server frames are valid JSON of the documented shape.
import t from 'tap'
import { alertFrame, errorFrame, LiveMessageError, observationsFrame, parseClientMessage, subscribedFrame } from '../../protocol/live-messages.ts'

t.test('subscribe and unsubscribe are read', async (t) => {
  t.same(parseClientMessage('{"type":"subscribe","project_id":1,"datapoints":["a","a","b c"]}'), { type: 'subscribe', project_id: 1, datapoints: ['a', 'b c'], alerts: false })
  const s = parseClientMessage('{"type":"subscribe","project_id":2,"datapoints":"all","alerts":true,"since":"2024-03-31T00:00:00Z","ref":"r1"}')
  t.same(s, { type: 'subscribe', project_id: 2, datapoints: 'all', alerts: true, since: Date.UTC(2024, 2, 31) * 1000, ref: 'r1' })
  const per = parseClientMessage('{"type":"subscribe","project_id":2,"datapoints":["x"],"since":{"x":"2024-03-31T00:00:00.5Z"}}')
  t.same(per.type === 'subscribe' && per.since instanceof Map ? [...per.since] : undefined, [['x', Date.UTC(2024, 2, 31) * 1000 + 500_000]])
  t.same(parseClientMessage('{"type":"unsubscribe","project_id":1}'), { type: 'unsubscribe', project_id: 1 })
  t.same(parseClientMessage('{"type":"unsubscribe","project_id":1,"datapoints":["a"],"alerts":false}'), { type: 'unsubscribe', project_id: 1, datapoints: ['a'], alerts: false })
})

t.test('bad messages name the field and keep the ref', async (t) => {
  const bad: [string, RegExp][] = [
    ['nope', /not JSON/],
    ['[1]', /JSON object/],
    ['{"type":"hello"}', /type must be 'subscribe' or 'unsubscribe'/],
    ['{"type":"subscribe","project_id":0,"datapoints":"all"}', /project_id must be a positive integer/],
    ['{"type":"subscribe","project_id":"1","datapoints":"all"}', /project_id/],
    ['{"type":"subscribe","project_id":1}', /datapoints is required/],
    ['{"type":"subscribe","project_id":1,"datapoints":"some"}', /datapoints must be a list/],
    ['{"type":"subscribe","project_id":1,"datapoints":[""]}', /datapoints\[0\] must be a non-empty string/],
    ['{"type":"subscribe","project_id":1,"datapoints":"all","since":"yesterday"}', /since must be an RFC 3339 timestamp/],
    ['{"type":"subscribe","project_id":1,"datapoints":"all","since":{"a":1}}', /since\['a'\]/],
    ['{"type":"subscribe","project_id":1,"datapoints":"all","alerts":"yes"}', /alerts must be true or false/],
    ['{"type":"subscribe","project_id":1,"datapoints":"all","extra":1}', /Unknown field 'extra'/],
    ['{"type":"unsubscribe","project_id":1,"since":"2024-01-01T00:00:00Z"}', /Unknown field 'since'/],
  ]
  for (const [text, err] of bad) t.throws(() => parseClientMessage(text), err, text)
  try {
    parseClientMessage('{"type":"subscribe","project_id":-1,"datapoints":"all","ref":"r9"}')
    t.fail('refused')
  } catch (err) {
    t.ok(err instanceof LiveMessageError)
    t.equal((err as LiveMessageError).ref, 'r9', 'the answer can name the message it refuses')
  }
})

t.test('server frames', async (t) => {
  const f = JSON.parse(observationsFrame(1, 'Raum "1"', [{ time: 1_711_843_200_000_000, value: 18.5 }, { time: 1_711_843_200_000_001, value: -0 }], true))
  t.same(f, { type: 'observations', project_id: 1, dataPointID: 'Raum "1"', data: [{ time: '2024-03-31T00:00:00Z', value: 18.5 }, { time: '2024-03-31T00:00:00.000001Z', value: 0 }], fill: true })
  t.notOk('fill' in JSON.parse(observationsFrame(1, 'a', [])), 'fill only on the resume')
  t.same(JSON.parse(subscribedFrame(3, 'all', true, 'r')), { type: 'subscribed', ref: 'r', project_id: 3, datapoints: 'all', alerts: true })
  t.same(JSON.parse(errorFrame('NOT_FOUND', 'Project 9 not found')), { type: 'error', code: 'NOT_FOUND', error: 'Project 9 not found' })
  t.match(JSON.parse(alertFrame(1, { alert_id: 7, dataPointID: 'a', kind: 'raise', level: 'crit', previous_level: null, value: 31.5, time: 0 })), { type: 'alert', alert_id: 7, time: '1970-01-01T00:00:00Z' })
})
