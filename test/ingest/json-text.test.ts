// The JSON ingest read straight from the text (ingest/json-text.ts) must give exactly what
// parsing and validating the body gives (api/app.ts, ingest/json-observations.ts): the same
// rows in the same order, or nothing (the caller then takes that way and its error texts).
import t from 'tap'
import sjson from 'secure-json-parse'
import { type IdentifiedObservation, OBSERVATIONS_PER_TURN, validateJsonObservationsInSteps } from '../../ingest/json-observations.ts'
import { observationsFromJsonText } from '../../ingest/json-text.ts'

/** What the route gets without the reader: the app's JSON parse, then validation. */
async function parsedAndValidated(text: string): Promise<{ rows?: IdentifiedObservation[]; error?: string }> {
  try {
    const body = text === '' ? {} : sjson.parse(text, { protoAction: 'error', constructorAction: 'error' })
    return { rows: await validateJsonObservationsInSteps(body) }
  } catch (err) {
    return { error: (err as Error).message }
  }
}

function sameRows(a: IdentifiedObservation[], b: IdentifiedObservation[]): boolean {
  return a.length === b.length && a.every((r, i) => r.id === b[i].id && r.time === b[i].time && Object.is(r.value, b[i].value))
}

const us = (iso: string) => Date.parse(iso) * 1000

t.test('the usual shape is read, in body order, with every time form and number form', async t => {
  const text = `{"in/0/0":[{"time":"2024-01-01T00:00:00.000Z","value":12.5}],
    "Raum ü/1" : [ {"value": -0, "time": " 2024-01-01T01:00:00+01:00 "} , {"time":"2024-01-01","value":1e3} ],
    "empty":[],
    "007x":[{"time":"2024-01-01 00:00:01.5","value":-1.25E-2}]}`
  const rows = await observationsFromJsonText(text)
  t.ok(rows, 'read')
  t.same(rows!.map((r) => [r.id, r.time, r.value]), [
    ['in/0/0', us('2024-01-01T00:00:00Z'), 12.5],
    ['Raum ü/1', us('2024-01-01T00:00:00Z'), -0],
    ['Raum ü/1', us('2024-01-01T00:00:00Z'), 1000],
    ['007x', us('2024-01-01T00:00:01.5Z'), -0.0125],
  ])
  t.ok(Object.is(rows![1].value, -0), '-0 stays -0, as JSON.parse gives it')
  t.same(await observationsFromJsonText('{}'), [])
  t.same(await observationsFromJsonText(' \r\n{ }\t'), [])
})

t.test('anything else is left to parsing and validation', async t => {
  const ok = '[{"time":"2024-01-01T00:00:00Z","value":1}]'
  const cases: Record<string, string> = {
    'an escape in an identifier': `{"a\\u0062":${ok}}`,
    'an escape in a time': '{"a":[{"time":"2024-01-01T00:00:00\\u005a","value":1}]}',
    'a repeated identifier (JSON.parse keeps the last)': `{"a":${ok},"a":${ok}}`,
    'an index-like identifier (JSON.parse puts it first)': `{"b":${ok},"12":${ok}}`,
    '__proto__': `{"__proto__":${ok}}`,
    'constructor': `{"constructor":${ok}}`,
    'an empty identifier': `{"":${ok}}`,
    'a control character (C1) in an identifier': `{"a\u0085":${ok}}`,
    'an identifier over 1,000 characters': `{"${'x'.repeat(1001)}":${ok}}`,
    'another field': '{"a":[{"time":"2024-01-01T00:00:00Z","value":1,"unit":"K"}]}',
    'a missing value': '{"a":[{"time":"2024-01-01T00:00:00Z"}]}',
    'a repeated time': '{"a":[{"time":"2024-01-01T00:00:00Z","time":"2024-01-02T00:00:00Z"}]}',
    'a value as a string': '{"a":[{"time":"2024-01-01T00:00:00Z","value":"1"}]}',
    'a null value': '{"a":[{"time":"2024-01-01T00:00:00Z","value":null}]}',
    'an infinite value': '{"a":[{"time":"2024-01-01T00:00:00Z","value":1e999}]}',
    'a time as a number': '{"a":[{"time":1704067200,"value":1}]}',
    'an unparseable time': '{"a":[{"time":"2024-13-01T00:00:00Z","value":1}]}',
    'a leading zero': '{"a":[{"time":"2024-01-01T00:00:00Z","value":01}]}',
    'a bare dot': '{"a":[{"time":"2024-01-01T00:00:00Z","value":1.}]}',
    'a plus sign': '{"a":[{"time":"2024-01-01T00:00:00Z","value":+1}]}',
    'observations not in an array': '{"a":{"time":"2024-01-01T00:00:00Z","value":1}}',
    'an array body': `[${ok}]`,
    'a trailing comma': `{"a":${ok},}`,
    'text after the body': `{"a":${ok}} x`,
    'a byte order mark': `\ufeff{"a":${ok}}`,
    'a cut body': `{"a":${ok}`,
    'an empty body': '',
  }
  for (const [what, text] of Object.entries(cases)) t.equal(await observationsFromJsonText(text), undefined, what)
})

/** Seeded generator of bodies near the usual shape: most are read, many are not. */
function generator(seed: number) {
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]
  const space = () => pick(['', '', '', ' ', '\n', '\t', '\r\n  '])
  const ids = ['in/1/2', 'a', 'Raum ü', '12', '0', '__proto__', 'constructor', '', 'x\u0001', 'x\u0085', 'a"b', 'tab\tin', '💡/1', 'in/1/2', 'a']
  const times = ['2024-01-01T00:00:00Z', '2024-03-31T02:30:00+02:00', ' 2024-01-01 ', '2024-01-01T00:00:00.123456789Z', '2024-02-30', 'yesterday', '1970-01-01T00:00:00Z', '2024-01-01T00:00:60Z']
  const numbers = ['0', '-0', '1', '-12.5', '1e3', '1E-3', '2.5e+2', '123456789012345678901', '0.1', '1e999', '01', '1.', '.5', '+1', '-', '"1"', 'null', 'true', '5e-324']
  const key = (name: string) => (rnd() < 0.05 ? `"${name.replace(/"/g, '\\"').replace(/\t/g, '\\t')}"` : JSON.stringify(name))
  function observation(): string {
    const fields = [`${key('time')}${space()}:${space()}${rnd() < 0.1 ? '17' : JSON.stringify(pick(times))}`, `"value"${space()}:${space()}${pick(numbers)}`]
    if (rnd() < 0.5) fields.reverse()
    if (rnd() < 0.05) fields.push('"unit":"K"')
    if (rnd() < 0.05) fields.pop()
    if (rnd() < 0.03) fields.push(fields[0])
    return `{${space()}${fields.join(`${space()},${space()}`)}${space()}}`
  }
  return function body(): string {
    const members: string[] = []
    const n = Math.floor(rnd() * 4)
    for (let m = 0; m < n; m++) {
      const obs = Array.from({ length: Math.floor(rnd() * 3) }, observation)
      members.push(`${space()}${key(pick(ids))}${space()}:${space()}[${space()}${obs.join(`${space()},${space()}`)}${space()}]`)
    }
    let text = `${space()}{${members.join(',')}${space()}}${space()}`
    const r = rnd()
    if (r < 0.03) text = text.slice(0, Math.floor(rnd() * text.length))
    else if (r < 0.05) text += ','
    return text
  }
}

t.test('generated bodies: read only where parsing and validation give the same rows', async t => {
  // Valid ones mostly: the generator draws its parts from those lists, one in ~5 is off.
  const body = generator(20261126)
  let read = 0
  let refusedByBoth = 0
  let total = 0
  for (let i = 0; i < 20_000; i++) {
    const text = body()
    const fast = await observationsFromJsonText(text)
    const slow = await parsedAndValidated(text)
    total++
    if (fast === undefined) {
      if (slow.error !== undefined) refusedByBoth++
      continue
    }
    read++
    if (slow.rows === undefined) {
      t.fail(`read, but parsing and validation refuse it: ${JSON.stringify(text)} (${slow.error})`)
      return
    }
    if (!sameRows(fast, slow.rows)) {
      t.fail(`different rows for ${JSON.stringify(text)}`)
      return
    }
  }
  t.pass(`${read} of ${total} read with the same rows as parsing and validation; ${refusedByBoth} refused by both ways`)
  t.ok(read > total / 10, `a good share takes the reader (${read})`)
  t.ok(refusedByBoth > total / 10, `a good share is refused (${refusedByBoth})`)
})

t.test('a large body lets the event loop turn every OBSERVATIONS_PER_TURN observations; a small one never waits', async (t) => {
  const body = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`dp/${i}`, [{ time: '2024-01-01T00:00:00Z', value: i }]])))
  let turns = 0
  let counting = true
  const count = () => { if (!counting) return; turns++; setImmediate(count) }
  setImmediate(count)
  const small = await observationsFromJsonText(body(OBSERVATIONS_PER_TURN))
  const before = turns
  t.equal(small?.length, OBSERVATIONS_PER_TURN)
  t.equal(before, 0, 'read without a turn of the loop')
  const large = await observationsFromJsonText(body(3 * OBSERVATIONS_PER_TURN + 1))
  t.equal(large?.length, 3 * OBSERVATIONS_PER_TURN + 1)
  t.ok(turns - before >= 3, `the loop turned while reading (${turns - before} turns)`)
  counting = false
})
