import t, { type Test } from 'tap'
import {
  type MetaCommand, type Tag, type TagMode, MAX_TAGS, MAX_TAG_KEY_LENGTH, MAX_TAG_VALUE_LENGTH,
  applyTagModes, parseMetaMessage, tagValueText,
} from '../../protocol/meta-message.ts'

const parse = (x: unknown, maxBytes?: number) =>
  parseMetaMessage(Buffer.from(typeof x === 'string' ? x : JSON.stringify(x)), maxBytes === undefined ? {} : { maxBytes })
function ok(t: Test, x: unknown): MetaCommand | undefined {
  const r = parse(x)
  if (!r.ok) { t.fail(`unexpected error: ${r.error}`); return undefined }
  return r.command
}
function error(x: unknown, maxBytes?: number): string {
  const r = parse(x, maxBytes)
  return r.ok ? 'accepted' : r.error
}

const V2 = {
  entity: { id: 'building/floor1/temp', type: 'datapoint', source: 'bacnet' },
  mode: ['add', 'update'],
  tags: [{ key: 'unit', value: '°C' }, { key: 'room', value: 1 }],
}

t.test('V2 datapoint', async t => {
  const c = ok(t, V2)!
  t.equal(c.scheme, 'v2')
  t.same(c.entity, { id: 'building/floor1/temp', type: 'datapoint', source: 'bacnet' })
  t.same([...c.modes].sort(), ['add', 'update'])
  t.same(c.tags, [{ key: 'unit', value: '°C' }, { key: 'room', value: '1' }])
  t.equal(c.createIfMissing, true)
  t.notOk('datapoints' in c)
})

t.test('V2 device with child datapoints, all tag value kinds', async t => {
  const c = ok(t, {
    entity: { id: 'AHU 1', type: 'device', source: 'edge' }, mode: ['clean'], datapoints: ['a/b', 'Raum 1 Temp'],
    tags: [
      { key: 's', value: 'text' }, { key: 'n', value: 21.5 }, { key: 'i', value: 1.0 }, { key: 'b', value: true },
      { key: 'z', value: null }, { key: 'o', value: { a: [1, 2], b: { c: 'x' } } }, { key: 'arr', value: ['x', 1] },
      { key: 'empty', value: '' },
    ],
    ignored: 'other top-level keys are ignored in V2',
  })!
  t.same(c.entity, { id: 'AHU 1', type: 'device', source: 'edge' })
  t.same(c.datapoints, ['a/b', 'Raum 1 Temp'])
  t.same(c.tags, [
    { key: 's', value: 'text' }, { key: 'n', value: '21.5' }, { key: 'i', value: '1' }, { key: 'b', value: 'true' },
    { key: 'z', value: 'null' }, { key: 'o', value: '{"a":[1,2],"b":{"c":"x"}}' }, { key: 'arr', value: '["x",1]' },
    { key: 'empty', value: '' },
  ])
  t.same([...c.modes], ['clean'])
  t.same(ok(t, { ...V2, mode: ['add', 'add'], tags: [] })!.tags, [])
})

t.test('V2 errors', async t => {
  const cases: [unknown, RegExp][] = [
    [{ ...V2, entity: 'x' }, /entity must be an object/],
    [{ ...V2, entity: null }, /entity must be an object/],
    [{ ...V2, entity: { type: 'datapoint', source: 's' } }, /entity.id must be a non-empty string/],
    [{ ...V2, entity: { id: '', type: 'datapoint', source: 's' } }, /entity.id/],
    [{ ...V2, entity: { id: 5, type: 'datapoint', source: 's' } }, /entity.id/],
    [{ ...V2, entity: { id: 'x'.repeat(1001), type: 'datapoint', source: 's' } }, /longer than 1000/],
    [{ ...V2, entity: { id: 'a', type: 'Datapoint', source: 's' } }, /entity.type/],
    [{ ...V2, entity: { id: 'a', source: 's' } }, /entity.type/],
    [{ ...V2, entity: { id: 'a', type: 'device' } }, /entity.source/],
    [{ ...V2, entity: { id: 'a', type: 'device', source: '' } }, /entity.source/],
    [{ ...V2, entity: { id: 'a', type: 'device', source: 3 } }, /entity.source/],
    [{ ...V2, mode: undefined }, /mode must be/],
    [{ ...V2, mode: [] }, /mode must be/],
    [{ ...V2, mode: 'add' }, /mode must be/],
    [{ ...V2, mode: ['add', 'merge'] }, /unknown mode: "merge"/],
    [{ ...V2, mode: ['ADD'] }, /unknown mode/],
    [{ ...V2, tags: undefined }, /tags must be an array/],
    [{ ...V2, tags: { unit: 'C' } }, /tags must be an array/],
    [{ ...V2, tags: [{ key: 'a' }] }, /tags\[0\] must be an object/],
    [{ ...V2, tags: [{ key: 'a', value: 1 }, { value: 1 }] }, /tags\[1\]/],
    [{ ...V2, tags: [{ key: 1, value: 1 }] }, /tags\[0\]/],
    [{ ...V2, tags: ['a=b'] }, /tags\[0\]/],
    [{ ...V2, tags: [{ key: '', value: 1 }] }, /tags\[0\]: empty tag key/],
    [{ ...V2, tags: [{ key: 'k'.repeat(MAX_TAG_KEY_LENGTH + 1), value: 1 }] }, /tag key longer/],
    [{ ...V2, tags: [{ key: 'k', value: 'v'.repeat(MAX_TAG_VALUE_LENGTH + 1) }] }, /tag value longer/],
    [{ ...V2, tags: Array.from({ length: MAX_TAGS + 1 }, (_, i) => ({ key: `k${i}`, value: i })) }, /more than 1000 tags/],
    [{ ...V2, datapoints: ['a'] }, /only allowed for an entity of type device/],
    [{ ...V2, entity: { id: 'd', type: 'device', source: 's' }, datapoints: 'a' }, /datapoints must be an array/],
    [{ ...V2, entity: { id: 'd', type: 'device', source: 's' }, datapoints: ['a', ''] }, /datapoints\[1\]/],
    [{ ...V2, entity: { id: 'd', type: 'device', source: 's' }, datapoints: [3] }, /datapoints\[0\]/],
  ]
  for (const [msg, re] of cases) t.match(error(msg), re, JSON.stringify(msg).slice(0, 80))
  t.match(error('{"entity":{"id":"a","type":"datapoint","source":"s"},"mode":["add"],"tags":[{"key":"__proto__","value":1}]}'), /__proto__/)
})

t.test('V1', async t => {
  const c = ok(t, { name: 'Raum 1 Temp', objtype: 'analogInput', source: 'bacnet', unit: '°C', lowLimit: 5, enabled: true, meta: { a: 1 } })!
  t.equal(c.scheme, 'v1')
  t.same(c.entity, { id: 'Raum 1 Temp', type: 'datapoint', source: 'bacnet' })
  t.same(c.tags, [
    { key: 'objtype', value: 'analogInput' }, { key: 'source', value: 'bacnet' }, { key: 'unit', value: '°C' },
    { key: 'lowLimit', value: '5' }, { key: 'enabled', value: 'true' }, { key: 'meta', value: '{"a":1}' },
  ])
  t.same([...c.modes].sort(), ['add', 'update'])
  t.equal(c.createIfMissing, false)
  t.notOk('datapoints' in c)

  for (const objtype of ['device', 'Device', ' DEVICE ']) t.equal(ok(t, { name: 'd', objtype })!.entity.type, 'device', objtype)
  for (const objtype of ['datapoint', 'analogValue', 'binaryInput', 'devices', 'x']) t.equal(ok(t, { name: 'd', objtype })!.entity.type, 'datapoint', objtype)
  const noSource = ok(t, { name: 'd', objtype: 'device' })!
  t.same(noSource.entity, { id: 'd', type: 'device' })
  t.same(noSource.tags, [{ key: 'objtype', value: 'device' }])
  t.equal(ok(t, { name: 'd', objtype: 'device', source: 7 })!.entity.source, '7')

  t.match(error({ name: 'd' }), /objtype is missing/)
  t.match(error({ name: 'd', objtype: '' }), /objtype must be/)
  t.match(error({ name: 'd', objtype: 8 }), /objtype must be/)
  t.match(error({ name: '', objtype: 'device' }), /name must be a non-empty string/)
  t.match(error({ name: 3, objtype: 'device' }), /name must be/)
  t.match(error({ name: 'd', objtype: 'device', '': 1 }), /empty tag key/)
  t.match(error('{"name":"d","objtype":"device","__proto__":1}'), /__proto__/)
})

t.test('payload errors', async t => {
  t.match(error(''), /empty payload/)
  t.match(error('{'), /invalid JSON/)
  t.match(error('[]'), /must be a JSON object/)
  t.match(error('"x"'), /must be a JSON object/)
  t.match(error('null'), /must be a JSON object/)
  t.match(error({ foo: 1 }), /neither/)
  t.match(error(V2, 10), /larger than 10 bytes/)
  t.ok(parse('\ufeff' + JSON.stringify(V2)).ok, 'BOM tolerated')
})

t.test('tagValueText', async t => {
  t.equal(tagValueText('a b'), 'a b')
  t.equal(tagValueText(0), '0')
  t.equal(tagValueText(false), 'false')
  t.equal(tagValueText([]), '[]')
})

t.test('applyTagModes', async t => {
  const cur = { unit: 'C', room: '1', floor: '2' }
  const inc: Tag[] = [{ key: 'room', value: '9' }, { key: 'zone', value: 'north' }]
  const cases: [TagMode[], Record<string, string>][] = [
    [['clean'], { room: '9', zone: 'north' }],
    [['clean', 'add'], { room: '9', zone: 'north' }],
    [['clean', 'update'], { room: '9', zone: 'north' }],
    [['clean', 'add', 'update'], { room: '9', zone: 'north' }],
    [['add'], { unit: 'C', room: '1', floor: '2', zone: 'north' }],
    [['update'], { unit: 'C', room: '9', floor: '2' }],
    [['add', 'update'], { unit: 'C', room: '9', floor: '2', zone: 'north' }],
    [[], { unit: 'C', room: '1', floor: '2' }],
  ]
  for (const [modes, want] of cases) {
    t.same({ ...applyTagModes(cur, inc, modes) }, want, modes.join('+') || 'none')
    t.same({ ...applyTagModes(cur, inc, new Set(modes)) }, want, `${modes.join('+')} as Set`)
  }
  t.same(cur, { unit: 'C', room: '1', floor: '2' }, 'current is not modified')
  t.same({ ...applyTagModes(cur, [], ['clean']) }, {}, 'clean with no tags drops everything')
  t.same({ ...applyTagModes({}, inc, ['update']) }, {}, 'update on an empty set adds nothing')

  // repeated keys: existence is judged against current; the last value wins
  const dup: Tag[] = [{ key: 'zone', value: 'a' }, { key: 'zone', value: 'b' }, { key: 'room', value: 'x' }, { key: 'room', value: 'y' }]
  t.same({ ...applyTagModes(cur, dup, ['add']) }, { unit: 'C', room: '1', floor: '2', zone: 'b' })
  t.same({ ...applyTagModes(cur, dup, ['update']) }, { unit: 'C', room: 'y', floor: '2' })
  t.same({ ...applyTagModes(cur, dup, ['clean']) }, { zone: 'b', room: 'y' })

  // prototype keys are ordinary keys
  const r = applyTagModes({ toString: 'x' }, [{ key: 'constructor', value: 'c' }, { key: 'toString', value: 'y' }], ['add'])
  t.equal(r.constructor, 'c')
  t.equal(r.toString, 'x')
  t.same(Object.keys(r).sort(), ['constructor', 'toString'])
  t.same(Object.keys(applyTagModes({}, [{ key: 'hasOwnProperty', value: '1' }], ['update'])), [])
})

t.test('identifiers with control characters are refused (issue 9)', async t => {
  t.equal(error({ ...V2, entity: { ...V2.entity, id: 'a\u0000b' } }), 'entity.id contains the control character U+0000')
  t.equal(error({ entity: { id: 'dev', type: 'device', source: 's' }, mode: ['add'], tags: [], datapoints: ['ok', 'x\u009b'] }), 'datapoints[1] contains the control character U+009B')
  t.equal(error({ name: 'v1\u001b', objtype: 'analogInput' }), 'name contains the control character U+001B')
  t.equal(error({ ...V2, tags: [{ key: 'room\u0000', value: 'A' }] }), 'tags[0]: tag key contains the control character U+0000', 'a tag key (what TagAuths filter on)')
  t.equal(error({ name: 'v1', objtype: 'analogInput', 'k\u0085': 1 }), 'key "k\u0085": tag key contains the control character U+0085')
})
