// Issue 29, the input findings: each request below answered 500 (found by fuzzing) or was
// accepted where it must be refused. Every one now answers a 4xx naming what was wrong, and
// nothing of a refused request is stored.
import t, { type Test } from 'tap'
import { gzipSync } from 'node:zlib'
import { addProject, basic, platform, type Platform } from '../helpers/platform.ts'

const B = '----lintel-input-limits'
const part = (field: string, filename: string, data: string) =>
  `--${B}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: text/csv\r\n\r\n${data}\r\n`
const form = (...parts: string[]) => parts.join('') + `--${B}--\r\n`

async function setup(t: Test) {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'Limits')
  const send = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: string | Buffer, headers: Record<string, string> = {}) => {
    const res = await p.app.inject({ method, url, payload, headers: { authorization: basic(p.admin), ...headers } })
    return { status: res.statusCode, body: res.json() as any }
  }
  const json = (method: 'POST' | 'PUT', url: string, text: string) => send(method, url, text, { 'content-type': 'application/json' })
  const multipart = (url: string, body: string, type = `multipart/form-data; boundary=${B}`) => send('POST', url, body, { 'content-type': type })
  const values = async (id: string) => {
    const r = await p.call(p.admin, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=${encodeURIComponent(id)}`)
    return r.status === 200 ? r.body.data : []
  }
  return { p, pid, send, json, multipart, values }
}

const refused = (t: Test, r: { status: number; body: any }, status: number, error: RegExp, what: string) => {
  t.equal(r.status, status, `${what}: ${status}`)
  t.match(r.body, { success: false, error }, `${what}: the failure envelope says why`)
}

t.test('huge and non-finite page numbers of every list answer 400, not 500', async (t) => {
  const { p, pid, json, send } = await setup(t)
  t.equal((await json('POST', `/v2/project/${pid}/timeseries`, '{"t":[{"time":"2024-01-01T00:00:00Z","value":1}]}')).status, 200)
  const alert = await p.call(p.admin, 'POST', `/v2/alert/threshold?project_id=${pid}`, { name: 'hot', dataPointID: 't', thresholds: { warn: { upper: 26, upper_reset: 24 } }, notification: { log: true } })
  t.equal(alert.status, 201)
  const lists = ['/v2/company/files', `/v2/project/${pid}/files`, `/v2/project/${pid}/alerts`, `/v2/project/${pid}/alert/${alert.body.resource.id}/events`, `/v2/project/${pid}/virtual_datapoints`, `/v2/project/${pid}`]
  for (const list of lists) {
    for (const page of ['Infinity', '1e21', '99999999999999999999', '1000000001']) {
      refused(t, await send('GET', `${list}?page=${page}`), 400, /page must be <= 1000000000/, `${list}?page=${page}`)
    }
    t.equal((await send('GET', `${list}?page=1000000000`)).status, 200, `${list}: the highest page is an empty page`)
  }
})

t.test('a samplerate beyond 100 years answers 400, not 500', async (t) => {
  const { pid, json, send } = await setup(t)
  await json('POST', `/v2/project/${pid}/timeseries`, '{"t":[{"time":"2024-01-01T00:00:00Z","value":1}]}')
  const read = (rate: string, range = '') => send('GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=t&samplerate=${rate}${range}`)
  for (const rate of ['104250d', '9999999999d', '36501d', '876001h']) {
    refused(t, await read(rate), 400, /Invalid samplerate .* at most 36500d/, `samplerate=${rate}`)
    refused(t, await read(rate, '&start=2024-01-01T00:00:00Z&end=2024-01-02T00:00:00Z'), 400, /Invalid samplerate/, `samplerate=${rate} with a range`)
  }
  const longest = await read('36500d')
  t.equal(longest.status, 200, '36500d is read')
  t.equal(longest.body.data.length, 1, 'one bucket holds the observation')
})

t.test('broken multipart bodies of the CSV import and of documents answer 400, not 500, and store nothing', async (t) => {
  const { pid, multipart, values, send } = await setup(t)
  const good = form(part('import_file', 'a.csv', 'mp,1,2024-01-01T00:00:00Z\n'))
  const doc = form(part('file', 'plan.txt', 'plan'))
  for (const url of [`/v2/project/${pid}/importTimeseries?format=csv&on_error=continue`, `/v2/project/${pid}/importTimeseries/csv?on_error=abort`]) {
    refused(t, await multipart(url, good, 'multipart/form-data'), 400, /no boundary/, `${url}: no boundary`)
    refused(t, await multipart(url, good, 'multipart/form-data; boundary=elsewhere'), 400, /ends before its closing boundary/, `${url}: another boundary`)
    refused(t, await multipart(url, good.slice(0, 100)), 400, /ends before its closing boundary/, `${url}: truncated in the file`)
    refused(t, await multipart(url, good.slice(0, good.length - 8)), 400, /ends before its closing boundary/, `${url}: truncated before the last boundary`)
  }
  t.same(await values('mp'), [], 'nothing of the refused uploads was stored')
  for (const url of ['/v2/company/file?folder=docs', `/v2/project/${pid}/file?folder=docs`]) {
    refused(t, await multipart(url, doc, 'multipart/form-data'), 400, /no boundary/, `${url}: no boundary`)
    refused(t, await multipart(url, doc, 'multipart/form-data; boundary=elsewhere'), 400, /closing boundary|form field file/, `${url}: another boundary`)
    refused(t, await multipart(url, doc.slice(0, 90)), 400, /closing boundary|form field file/, `${url}: truncated`)
  }
  t.same((await send('GET', `/v2/project/${pid}/files`)).body.items, [], 'no document was stored')
  t.same((await send('GET', '/v2/company/files')).body.items, [], 'no company document was stored')
})

t.test('a second CSV file in one upload is refused (400) and nothing is stored', async (t) => {
  const { pid, multipart, values } = await setup(t)
  const two = form(part('import_file', 'a.csv', 'two,1,2024-01-01T00:00:00Z\n'), part('import_file', 'b.csv', 'two,2,2024-01-01T00:01:00Z\n'))
  const other = form(part('import_file', 'a.csv', 'two,1,2024-01-01T00:00:00Z\n'), part('other', 'b.csv', 'two,2,2024-01-01T00:01:00Z\n'))
  for (const onError of ['continue', 'abort']) {
    refused(t, await multipart(`/v2/project/${pid}/importTimeseries?format=csv&on_error=${onError}`, two), 400, /One file per upload/, `on_error=${onError}: two files`)
    refused(t, await multipart(`/v2/project/${pid}/importTimeseries?format=csv&on_error=${onError}`, other), 400, /One file per upload/, `on_error=${onError}: a second file in another field`)
  }
  t.same(await values('two'), [], 'neither file was stored')
  const one = await multipart(`/v2/project/${pid}/importTimeseries?format=csv&on_error=continue`, form(part('import_file', 'a.csv', 'two,1,2024-01-01T00:00:00Z\n')))
  t.equal(one.body.resource?.total_lines_success, 1, 'one file is imported as before')
})

t.test('the CSV import refuses identifiers over 1,000 characters, as JSON and MQTT do', async (t) => {
  const { pid, multipart, values } = await setup(t)
  const long = 'L'.repeat(1001)
  const csv = `${long},1,2024-01-01T00:00:00Z\n"${long}",2,2024-01-01T00:01:00Z\n${'L'.repeat(1000)},3,2024-01-01T00:02:00Z\n`
  const r = await multipart(`/v2/project/${pid}/importTimeseries?format=csv&on_error=continue`, form(part('import_file', 'a.csv', csv)))
  t.equal(r.status, 200)
  t.same(r.body.resource.errors, [
    { line_no: 1, error: 'Identifier is longer than 1000 characters' },
    { line_no: 2, error: 'Identifier is longer than 1000 characters' },
  ], 'unquoted and quoted: a line error each')
  t.equal(r.body.resource.total_lines_success, 1, 'exactly 1,000 characters is accepted')
  t.same(await values(long), [], 'the long identifier was not created')
  const abort = await multipart(`/v2/project/${pid}/importTimeseries?format=csv&on_error=abort`, form(part('import_file', 'a.csv', csv)))
  refused(t, abort, 400, /^Error in line 1: Identifier is longer than 1000 characters$/, 'on_error=abort')
})

t.test('JSON observations: unknown fields, lone surrogates, backslashes and underflowing numbers are refused', async (t) => {
  const { pid, json, values } = await setup(t)
  const post = (text: string) => json('POST', `/v2/project/${pid}/timeseries`, text)
  const cases: Array<[string, RegExp, string]> = [
    ['{"u":[{"time":"2024-01-01T00:00:00Z","value":1,"unit":"°C"}]}', /unknown field "unit" \(only time and value\)/, 'an unknown field'],
    ['{"u":[{"time":"2024-01-01T00:00:00Z","valeu":1}]}', /value must be a finite number/, 'a misspelt field'],
    ['{"u":[{"value":1,"time":"2024-01-01T00:00:00Z","extra":null}]}', /unknown field "extra"/, 'an unknown field after both'],
    ['{"u\\ud800":[{"time":"2024-01-01T00:00:00Z","value":1}]}', /lone UTF-16 surrogate/, 'a lone high surrogate'],
    ['{"\\udc00u":[{"time":"2024-01-01T00:00:00Z","value":1}]}', /lone UTF-16 surrogate/, 'a lone low surrogate'],
    ['{"u\\\\v":[{"time":"2024-01-01T00:00:00Z","value":1}]}', /contains a backslash/, 'a backslash'],
    ['{"u":[{"time":"2024-01-01T00:00:00Z","value":1e-400}]}', /1e-400 is too small for a double/, '1e-400'],
    ['{"u":[{"time":"2024-01-01T00:00:00Z","value":-2.5E-999}]}', /-2\.5E-999 is too small/, '-2.5E-999'],
    ['{"u":[{"time":"2024-01-01T00:00:00Z","value":2},{"time":"2024-01-01T00:01:00Z","value":1e-400}]}', /too small/, 'the second of two'],
  ]
  for (const [body, error, what] of cases) refused(t, await post(body), 400, error, what)
  t.same(await values('u'), [], 'nothing of the refused bodies was stored')
  // What stays accepted: zero written any way, the smallest doubles, a surrogate pair, a key "e-400" in a string.
  const ok = await post('{"u":[{"time":"2024-01-01T00:00:00Z","value":0e-400},{"time":"2024-01-01T00:01:00Z","value":5e-324},{"time":"2024-01-01T00:02:00Z","value":-0.0}],"\\ud83d\\ude00 1e-400":[{"time":"2024-01-01T00:00:00Z","value":1}]}')
  t.equal(ok.status, 200, JSON.stringify(ok.body))
  t.same((await values('u')).map((o: { value: number }) => o.value), [0, 5e-324, 0], 'zero, the smallest subnormal, minus zero')
  t.equal((await values('😀 1e-400')).length, 1, 'an emoji (a surrogate pair) and a number-like text in an identifier')
})

t.test('a gzip-encoded body answers 415 (unsupported), not 400, and a long path parameter 400 with the envelope', async (t) => {
  const { pid, send, values } = await setup(t)
  const body = gzipSync('{"z":[{"time":"2024-01-01T00:00:00Z","value":1}]}')
  refused(t, await send('POST', `/v2/project/${pid}/timeseries`, body, { 'content-type': 'application/json', 'content-encoding': 'gzip' }), 415, /Content-Encoding 'gzip' is not supported/, 'gzip JSON')
  refused(t, await send('POST', `/v2/project/${pid}/timeseries`, body, { 'content-type': 'application/json', 'content-encoding': 'deflate, gzip' }), 415, /not supported/, 'two codings')
  refused(t, await send('POST', `/v2/project/${pid}/importTimeseries?format=csv&on_error=continue`, gzipSync(form(part('import_file', 'a.csv', 'z,1,2024-01-01T00:00:00Z\n'))), { 'content-type': `multipart/form-data; boundary=${B}`, 'content-encoding': 'gzip' }), 415, /not supported/, 'gzip CSV upload')
  t.same(await values('z'), [], 'nothing stored')
  const plain = await send('POST', `/v2/project/${pid}/timeseries`, '{"z":[{"time":"2024-01-01T00:00:00Z","value":1}]}', { 'content-type': 'application/json', 'content-encoding': 'identity' })
  t.equal(plain.status, 200, 'identity is no coding')
  refused(t, await send('GET', `/v2/project/${'1'.repeat(101)}/roles`), 400, /path parameter is longer than 100 characters/, 'a 101-character path parameter')
  refused(t, await send('GET', '/v2/company/role/%ED%A0%80'), 400, /./, 'a path parameter that is no UTF-8')
})
