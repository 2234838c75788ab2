// Fuzz requests generated from the served OpenAPI document (issue 29, item 5). Pure: the
// document, a seed and the ids of a fixture (known-good values by parameter name) go in, a
// list of requests comes out; test/api/openapi-fuzz.test.ts sends them and checks every answer
// is one the document lists for its operation, and never a 5xx.
// Each operation gets a valid-looking baseline built from its schemas, then variants: every
// parameter and body field with wrong types, huge and non-finite numbers, odd Unicode (lone
// surrogates, bidi controls, NUL, backslashes, over-long text), missing required fields, an
// extra field, bodies that are not objects or not JSON, gzip-encoded bodies, and multipart
// bodies broken in the ways clients break them (no boundary, truncated, two files, no file).
// The same seed gives the same requests, in the same order.

export interface FuzzRequest {
  /** `METHOD /path` of the operation in the document. */
  op: string
  method: string
  url: string
  headers: Record<string, string>
  body?: Buffer
  /** What was changed from the baseline, for the failure message. */
  what: string
}

type Schema = Record<string, any>
export type Fixture = (name: string, where: 'path' | 'query' | 'body', path: string) => string | number | boolean | undefined

/** mulberry32: a small seeded generator; the test prints its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Raw query/path texts (already percent-encoded where needed): numbers out of range and odd text. */
const RAW_TEXTS = [
  'abc', '1.5', '-1', '0', '1e400', 'Infinity', '-Infinity', 'NaN', '99999999999999999999', '9007199254740993', '1e21', '0x10',
  '%ED%A0%80', '%FF', '%00', '%E2%80%AE', '%5C', '..%2F..', '%F0%9F%98%80', 'a%CC%81', 'x'.repeat(1001), 'x'.repeat(5000), '', '%20',
  'true', 'null', '[]', '%7B%7D', '104250d', '9999999999d', '2024-01-01T00:00:00Z',
]
/** JSON values of the wrong type or out of range; `raw` is spliced into the JSON text as is. */
const JSON_VALUES: Array<{ raw: string; what: string }> = [
  { raw: '"abc"', what: 'a string' }, { raw: '42', what: 'a number' }, { raw: '-1', what: '-1' }, { raw: '0', what: '0' },
  { raw: 'true', what: 'a boolean' }, { raw: 'null', what: 'null' }, { raw: '[]', what: 'an array' }, { raw: '{}', what: 'an object' },
  { raw: '1e400', what: '1e400 (Infinity)' }, { raw: '-1e400', what: '-1e400' }, { raw: '1e-400', what: '1e-400 (underflow)' },
  { raw: '1.7976931348623157e308', what: 'the largest double' }, { raw: '9007199254740993', what: '2^53+1' }, { raw: '1.5', what: '1.5' },
  { raw: '"\\ud800"', what: 'a lone surrogate' }, { raw: '"a\\\\b"', what: 'a backslash' }, { raw: '"\\u202e"', what: 'a bidi control' },
  { raw: '"\\u0000"', what: 'NUL' }, { raw: '""', what: 'an empty string' }, { raw: JSON.stringify('x'.repeat(1001)), what: '1001 characters' },
  { raw: JSON.stringify('é'.repeat(70_000)), what: '70,000 characters' }, { raw: '"2024-13-45T99:99:99Z"', what: 'a bad date' },
  { raw: '"1e400"', what: 'the text 1e400' }, { raw: '[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]', what: 'a deep array' },
]

/** A value that satisfies `schema` as far as a generator can without knowing the domain. */
export function sample(schema: Schema | undefined, name: string, fixture: Fixture, path: string, where: 'path' | 'query' | 'body'): unknown {
  const known = fixture(name, where, path)
  if (known !== undefined) return known
  if (!schema) return 'x'
  if (schema.default !== undefined) return schema.default
  if (schema.enum) return schema.enum[0]
  if (schema.const !== undefined) return schema.const
  const alt = schema.anyOf ?? schema.oneOf
  if (alt) return sample(alt.find((s: Schema) => s.type !== 'null') ?? alt[0], name, fixture, path, where)
  switch (schema.type) {
    case 'integer': case 'number': return Math.max(schema.minimum ?? 1, Math.min(schema.maximum ?? 1, 1))
    case 'boolean': return true
    case 'array': return schema.minItems ? [sample(schema.items, name, fixture, path, where)] : []
    case 'object': {
      const o: Record<string, unknown> = {}
      for (const [k, s] of Object.entries(schema.properties ?? {})) {
        if ((schema.required ?? []).includes(k) || known === undefined) o[k] = sample(s as Schema, k, fixture, path, where)
      }
      return o
    }
    default:
      if (schema.format === 'date-time') return '2024-01-01T00:00:00Z'
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1))
  }
}

const pick = <T>(rnd: () => number, xs: readonly T[], n: number): T[] => {
  const copy = [...xs]
  for (let i = copy.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [copy[i], copy[j]] = [copy[j], copy[i]] }
  return copy.slice(0, n)
}

interface Param { name: string; in: 'path' | 'query'; required?: boolean; schema?: Schema }

/** Every fuzz request for every operation of `doc`; `perField` variants of each parameter and field. */
export function fuzzRequests(doc: Schema, seed: number, fixture: Fixture, perField = 8): FuzzRequest[] {
  const rnd = prng(seed)
  const out: FuzzRequest[] = []
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, op] of Object.entries(ops)) {
      const params = (op.parameters ?? []) as Param[]
      const values = new Map<string, string>()
      for (const p of params) {
        const v = sample(p.schema, p.name, fixture, path, p.in)
        if (p.in === 'path' || p.required || fixture(p.name, p.in, path) !== undefined) values.set(`${p.in}:${p.name}`, encodeURIComponent(String(v)))
      }
      const url = (override: Map<string, string | undefined>, extra = '') => {
        const all = new Map([...values, ...override])
        const real = path.replace(/\{(\w+)\}/g, (_, n: string) => all.get(`path:${n}`) ?? 'x')
        const query = [...all].filter(([k, v]) => k.startsWith('query:') && v !== undefined).map(([k, v]) => `${k.slice(6)}=${v}`)
        if (extra) query.push(extra)
        return real + (query.length > 0 ? '?' + query.join('&') : '')
      }
      const content = op.requestBody?.content ?? {}
      const json = content['application/json']?.schema as Schema | undefined
      const multipart = content['multipart/form-data']?.schema as Schema | undefined
      const baseBody = json ? JSON.stringify(sample(json, '', fixture, path, 'body')) : undefined
      const opName = `${method.toUpperCase()} ${path}`
      const add = (what: string, u: string, body?: { type: string; data: Buffer; gzip?: boolean }) => {
        const headers: Record<string, string> = {}
        if (body) { headers['content-type'] = body.type; if (body.gzip) headers['content-encoding'] = 'gzip' }
        out.push({ op: opName, method: method.toUpperCase(), url: u, headers, body: body?.data, what })
      }
      const jsonBody = (text: string | undefined) => (text === undefined ? undefined : { type: 'application/json', data: Buffer.from(text) })
      const form = multipart ? multipartBodies(Object.keys(multipart.properties ?? {})[0] ?? 'file', rnd) : []
      const defaultBody = json ? jsonBody(baseBody) : form[0]?.body

      add('baseline', url(new Map()), defaultBody)
      add('an extra query parameter', url(new Map(), 'zz_extra=1'), defaultBody)
      for (const p of params) {
        const key = `${p.in}:${p.name}`
        if (p.in === 'query' && p.required) add(`${p.name} missing`, url(new Map([[key, undefined]])), defaultBody)
        if (p.in === 'query') add(`${p.name} twice`, url(new Map(), `${p.name}=${values.get(key) ?? '1'}`), defaultBody)
        for (const raw of pick(rnd, RAW_TEXTS, perField)) {
          // An empty path segment is another route (or none): not this operation's answer.
          if (p.in === 'path' && (raw === '' || raw.includes('%2F'))) continue
          add(`${p.in} ${p.name}=${raw.length > 40 ? raw.slice(0, 20) + `...(${raw.length})` : raw}`, url(new Map([[key, raw]])), defaultBody)
        }
      }
      if (json) {
        const base = JSON.parse(baseBody!)
        add('no body', url(new Map()), undefined)
        add('empty JSON body', url(new Map()), { type: 'application/json', data: Buffer.alloc(0) })
        add('malformed JSON', url(new Map()), { type: 'application/json', data: Buffer.from('{"a": ') })
        add('not JSON but declared so', url(new Map()), { type: 'application/json', data: Buffer.from('\u202e\ud800 text') })
        add('text/plain body', url(new Map()), { type: 'text/plain', data: Buffer.from(baseBody!) })
        add('gzip-encoded body', url(new Map()), { ...jsonBody(baseBody)!, gzip: true })
        for (const raw of ['[]', '"x"', '42', 'null', '1e400']) add(`body ${raw}`, url(new Map()), jsonBody(raw))
        const props = Object.keys(json.properties ?? (base && typeof base === 'object' && !Array.isArray(base) ? base : {}))
        if (json.additionalProperties && typeof json.additionalProperties === 'object' && props.length === 0) props.push('room A temp')
        if (base && typeof base === 'object' && !Array.isArray(base)) {
          add('an extra body field', url(new Map()), jsonBody(JSON.stringify({ ...base, zz_extra: 1 })))
          for (const k of json.required ?? []) { const { [k]: _, ...rest } = base; add(`body ${k} missing`, url(new Map()), jsonBody(JSON.stringify(rest))) }
          for (const k of props) {
            for (const v of pick(rnd, JSON_VALUES, perField)) {
              const text = JSON.stringify({ ...base, [k]: '\u0001MARK' }).replace('"\\u0001MARK"', v.raw)
              add(`body ${k} = ${v.what}`, url(new Map()), jsonBody(text))
            }
            const inner = json.properties?.[k] ?? json.additionalProperties
            const item = inner?.type === 'array' ? inner.items : undefined
            if (item?.type === 'object') {
              const one = sample(item, '', fixture, path, 'body') as Record<string, unknown>
              for (const [field] of Object.entries(item.properties ?? {})) {
                for (const v of pick(rnd, JSON_VALUES, Math.ceil(perField / 2))) {
                  const text = JSON.stringify({ ...base, [k]: [{ ...one, [field]: '\u0001MARK' }] }).replace('"\\u0001MARK"', v.raw)
                  add(`body ${k}[0].${field} = ${v.what}`, url(new Map()), jsonBody(text))
                }
              }
              add(`body ${k}[0] with an extra field`, url(new Map()), jsonBody(JSON.stringify({ ...base, [k]: [{ ...one, zz_extra: 1 }] })))
            }
          }
        }
      }
      for (const f of form) add(f.what, url(new Map()), f.body)
      if (!json && !multipart && method !== 'get' && method !== 'delete') {
        add('an unexpected JSON body', url(new Map()), jsonBody('{"zz_extra": "\\ud800"}'))
        add('an unexpected malformed body', url(new Map()), { type: 'application/json', data: Buffer.from('{') })
      }
    }
  }
  return out
}

/** Multipart bodies for the upload field `field`: a good one first, then broken ones. */
function multipartBodies(field: string, rnd: () => number): Array<{ what: string; body: { type: string; data: Buffer; gzip?: boolean } }> {
  const b = `----fuzz${Math.floor(rnd() * 1e12).toString(36)}`
  const type = `multipart/form-data; boundary=${b}`
  const part = (name: string, filename: string | null, data: string) =>
    `--${b}\r\nContent-Disposition: form-data; name="${name}"${filename === null ? '' : `; filename="${filename}"`}\r\nContent-Type: text/csv\r\n\r\n${data}\r\n`
  const good = part(field, 'fuzz.csv', 'room A temp,22,2024-01-01T00:30:00Z\n') + `--${b}--\r\n`
  const x = (what: string, data: string, t = type) => ({ what, body: { type: t, data: Buffer.from(data) } })
  const cut = Math.floor(good.length * (0.3 + rnd() * 0.4))
  return [
    x('a good multipart body', good),
    x('multipart without boundary', good, 'multipart/form-data'),
    x('multipart with an empty boundary', good, 'multipart/form-data; boundary='),
    x('multipart with another boundary', good, 'multipart/form-data; boundary=nothere'),
    x(`multipart truncated at ${cut}`, good.slice(0, cut)),
    x('multipart truncated before the final boundary', good.slice(0, good.length - b.length - 6)),
    x('multipart with no parts', `--${b}--\r\n`),
    x('multipart empty', ''),
    x('multipart with the wrong field name', part('zz_other', 'fuzz.csv', 'a,1,2024-01-01T00:00:00Z\n') + `--${b}--\r\n`),
    x('multipart with a field and no file', part(field, null, 'a,1,2024-01-01T00:00:00Z\n') + `--${b}--\r\n`),
    x('multipart with two files', part(field, 'a.csv', 'room A temp,1,2024-01-01T00:40:00Z\n') + part(field, 'b.csv', 'room A temp,2,2024-01-01T00:50:00Z\n') + `--${b}--\r\n`),
    x('multipart with an odd file name', part(field, '\u202e..\\..\\x%00\ud800.csv', 'a,1,2024-01-01T00:00:00Z\n') + `--${b}--\r\n`),
    x('multipart with a gzip encoding', good, type),
  ].map((f, i, all) => (i === all.length - 1 ? { ...f, body: { ...f.body, gzip: true } } : f))
}
