import t from 'tap'
import {
  type MqttGrant, canPublish, canSubscribe, classifyTopic, filterLevels, validClientId, MAX_CLIENT_ID_BYTES,
} from '../../protocol/topics.ts'

t.test('classifyTopic', async t => {
  const cases: [string, ReturnType<typeof classifyTopic>][] = [
    ['lb1/acme', { kind: 'timeseries', group: 'lb1', handle: 'acme' }],
    ['lb1/acme/Xy3kP9aQ', { kind: 'timeseries', group: 'lb1', handle: 'acme', postfix: 'Xy3kP9aQ' }],
    ['lb1/acme/a/b/c', { kind: 'timeseries', group: 'lb1', handle: 'acme', postfix: 'a/b/c' }],
    ['lb1/acme/', { kind: 'timeseries', group: 'lb1', handle: 'acme', postfix: '' }],
    ['lb1/acme//x', { kind: 'timeseries', group: 'lb1', handle: 'acme', postfix: '/x' }],
    ['lb1/Küche', { kind: 'timeseries', group: 'lb1', handle: 'Küche' }],
    ['META/lb1/acme', { kind: 'meta', group: 'lb1', handle: 'acme' }],
    ['CONTROLS/lb1/acme', { kind: 'controls', group: 'lb1', handle: 'acme' }],
    ['meta/lb1/acme', { kind: 'timeseries', group: 'meta', handle: 'lb1', postfix: 'acme' }], // case-sensitive
  ]
  for (const [topic, want] of cases) t.same(classifyTopic(topic), want, topic)
  t.notOk('postfix' in classifyTopic('lb1/acme')!)
  const none = [
    '', 'lb1', 'lb1/', '/acme', '/', '//', 'lb1//x', '$SYS/broker', '$share/g/lb1/acme',
    'lb1/+/x', 'lb1/acme/#', 'lb1/acme/+', '#', 'lb1/ac+me',
    'META', 'META/lb1', 'META/lb1/', 'META//acme', 'META/lb1/acme/x', 'META/lb1/acme/',
    'CONTROLS/lb1', 'CONTROLS/lb1/acme/x', 'CONTROLS//acme',
  ]
  for (const topic of none) t.equal(classifyTopic(topic), undefined, JSON.stringify(topic))
})

t.test('validClientId', async t => {
  for (const id of ['a', 'client1', 'ABCDEFGHIJKLMNOPQRSTUVW', 'edge-device_01.x', 'Küche-1', 'aedes_3f1b', ' blank ', 'x'.repeat(MAX_CLIENT_ID_BYTES)]) {
    t.ok(validClientId(id), id)
  }
  for (const id of ['', 'a/b', 'a+b', 'a#b', '/', '+', '#', 'a\u0000b', 'x'.repeat(MAX_CLIENT_ID_BYTES + 1), 'ü'.repeat(MAX_CLIENT_ID_BYTES / 2 + 1)]) {
    t.notOk(validClientId(id), JSON.stringify(id).slice(0, 40))
  }
  t.ok(validClientId('x'.repeat(300), 300))
})

const W: MqttGrant = { group: 'lb1', handle: 'acme', rights: 'write' }
const R: MqttGrant = { group: 'lb1', handle: 'acme', rights: 'read' }

t.test('canPublish', async t => {
  const ok = ['lb1/acme', 'lb1/acme/Xy3kP9aQ', 'lb1/acme/any/postfix/levels', 'lb1/acme/', 'META/lb1/acme', 'CONTROLS/lb1/acme']
  for (const topic of ok) {
    t.ok(canPublish(W, topic), `write ${topic}`)
    t.notOk(canPublish(R, topic), `read-only ${topic}`)
  }
  const refused = [
    'lb1/other', 'lb1/other/x', 'lb2/acme', 'lb2/acme/x', 'lb1/acmex', 'lb1/acm', 'lb1', 'acme/lb1',
    'META/lb1/other', 'META/lb2/acme', 'META/lb1/acme/x', 'CONTROLS/lb1/other', 'CONTROLS/lb1/acme/x',
    '$SYS/x', 'lb1/acme/#', 'lb1/acme/+', '#', '', 'LB1/acme', 'lb1/ACME',
  ]
  for (const topic of refused) t.notOk(canPublish(W, topic), JSON.stringify(topic))
})

t.test('canSubscribe', async t => {
  const ok = [
    'lb1/acme', 'lb1/acme/#', 'lb1/acme/+', 'lb1/acme/x', 'lb1/acme/x/#', 'lb1/acme/+/y', 'lb1/acme/+/#',
    'META/lb1/acme', 'CONTROLS/lb1/acme', 'META/lb1/acme/#', 'CONTROLS/lb1/acme/#',
  ]
  for (const f of ok) {
    t.ok(canSubscribe(R, f), `read ${f}`)
    t.ok(canSubscribe(W, f), `write implies read ${f}`)
  }
  const refused = [
    '#', '+', '+/#', '+/acme/#', '+/acme', 'lb1/+/#', 'lb1/+', 'lb1/#', 'lb1', 'lb1/other/#', 'lb2/acme/#',
    '$SYS/#', '$SYS/broker/clients', '$share/grp/lb1/acme/#', 'META/#', 'META/+/acme', 'META/lb1/+', 'META/lb1/#',
    'META/lb1', 'CONTROLS/#', 'CONTROLS/lb1/+', 'CONTROLS/+/+', '+/lb1/acme',
    // malformed filters
    '', 'lb1/acme/#/x', 'lb1/acme/x#', 'lb1/acme/x+', 'lb1/acme/##', 'lb1/ac+me', 'lb1/acme#',
  ]
  for (const f of refused) {
    t.notOk(canSubscribe(R, f), JSON.stringify(f))
    t.notOk(canSubscribe(W, f), JSON.stringify(f))
  }
})

t.test('unusable grants grant nothing', async t => {
  const bad: MqttGrant[] = [
    { group: '', handle: 'acme', rights: 'write' }, { group: 'lb1', handle: '', rights: 'write' },
    { group: '+', handle: 'acme', rights: 'write' }, { group: 'lb1', handle: '#', rights: 'write' },
    { group: 'META', handle: 'acme', rights: 'write' }, { group: 'a/b', handle: 'c', rights: 'write' },
    { group: 'lb1', handle: 'acme', rights: 'none' as 'read' },
  ]
  for (const g of bad) {
    t.notOk(canSubscribe(g, `${g.group}/${g.handle}/#`), JSON.stringify(g))
    t.notOk(canPublish(g, `${g.group}/${g.handle}`), JSON.stringify(g))
  }
})

t.test('filterLevels', async t => {
  t.same(filterLevels('a/+/#'), ['a', '+', '#'])
  t.same(filterLevels('/'), ['', ''])
  t.equal(filterLevels('a/#/b'), undefined)
  t.equal(filterLevels(''), undefined)
})
