// The catalogue of error codes (issue 30 item 4): every code an error can carry is in
// core/errors.ts ERROR_CATALOGUE, documented in docs/errors.md with its status, named in the
// OpenAPI document's failure answers, and answered in the header Lintel-Error-Code. A code
// thrown in the source but missing from the catalogue fails here (TypeScript refuses it too,
// unless cast), as does a catalogue code missing from either document.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ERROR_CATALOGUE, type ErrorCode } from '../../core/errors.ts'
import { sourceFiles } from '../architecture/imports.ts'
import { platform } from '../helpers/platform.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[]

/** Rows `| <status> | `<CODE>` | ... |` of docs/errors.md. */
function documentedRows(text: string): Map<string, number> {
  const rows = new Map<string, number>()
  for (const m of text.matchAll(/^\| (\d{3}) \| `([A-Z][A-Z0-9_]*)` \|/gm)) rows.set(m[2], Number(m[1]))
  return rows
}

/**
 * Codes the source names where a Lintel error is made: `new XError(..., 'CODE')`, `super(..., 'CODE')`
 * on one line, or a subclass's `override readonly code = 'CODE'` (an error that extends Error
 * itself, such as QuestdbQueryError, has no `override`: it is not a Lintel error, but a 500).
 */
function thrownCodes(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(/(?:new [A-Z]\w*(?:Error|Refused)\(|super\()[^;\n]*?,\s*'([A-Z][A-Z0-9_]+)'/g)) out.push(m[1])
  for (const m of text.matchAll(/\boverride readonly code(?:\s*:\s*\w+)?\s*=\s*'([A-Z][A-Z0-9_]+)'/g)) out.push(m[1])
  return out
}

t.test('docs/errors.md documents every code with its status, and no other', async (t) => {
  const rows = documentedRows(readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8'))
  t.same(CODES.filter((c) => rows.get(c) !== ERROR_CATALOGUE[c].status), [], 'each code in a row with its status')
  t.same([...rows.keys()].filter((c) => !(c in ERROR_CATALOGUE)), [], 'no row names a code the catalogue does not have')
})

t.test('the check finds a code missing from the documents', async (t) => {
  const rows = documentedRows('| 404 | `NOT_FOUND` | x |\n| 409 | `CONFLICT` | y |\n')
  t.same(CODES.filter((c) => rows.has(c)), ['NOT_FOUND', 'CONFLICT'])
  t.same(thrownCodes("throw new NotFoundError(`Alert ${id} gone`, 'ALERT_GONE')\nsuper(message, 'X_Y')\noverride readonly code = 'W_W'\nreadonly code = 'Z'"), ['ALERT_GONE', 'X_Y', 'W_W'])
})

t.test('every code the source throws is in the catalogue', async (t) => {
  const folders = ['core', 'api', 'ingest', 'engine', 'catalog', 'protocol', 'formulas', 'edge', 'server']
  const missing: string[] = []
  let seen = 0
  for (const file of sourceFiles(ROOT, folders)) {
    for (const code of thrownCodes(readFileSync(join(ROOT, file), 'utf8'))) {
      seen++
      if (!(code in ERROR_CATALOGUE)) missing.push(`${file}: ${code}`)
    }
  }
  t.ok(seen >= 10, `${seen} codes named where errors are made`)
  t.same(missing, [], 'no code outside the catalogue')
})

t.test('the OpenAPI document names, for each failure, the codes of its status', async (t) => {
  const p = await platform(t)
  const doc = (await p.app.inject({ method: 'GET', url: '/v2/openapi.json' })).json()
  const named = new Set<string>()
  let failures = 0
  for (const item of Object.values(doc.paths) as Record<string, { responses?: Record<string, { headers?: Record<string, { schema: { enum?: string[] } }> }> }>[]) {
    for (const op of Object.values(item)) {
      for (const [status, r] of Object.entries(op.responses ?? {})) {
        if (Number(status) < 400) continue
        failures++
        const codes = r.headers?.['lintel-error-code']?.schema.enum ?? []
        if (!codes.every((c) => ERROR_CATALOGUE[c as ErrorCode]?.status === Number(status))) t.fail(`${status}: ${codes.join(', ')}`)
        for (const c of codes) named.add(c)
      }
    }
  }
  t.ok(failures > 100, `${failures} failure answers documented`)
  t.same(CODES.filter((c) => !named.has(c)), [], 'every code of the catalogue is named in the document')
})

t.test('failures answer their code in Lintel-Error-Code', async (t) => {
  const p = await platform(t)
  const code = async (url: string, auth?: string) => {
    const res = await p.app.inject({ method: 'GET', url, headers: auth ? { authorization: auth } : {} })
    return [res.statusCode, res.headers['lintel-error-code']]
  }
  t.same(await code('/v2/nothing'), [404, 'ROUTE_NOT_FOUND'])
  t.same(await code('/v2/company'), [401, 'UNAUTHENTICATED'])
  const auth = 'Basic ' + Buffer.from(`${p.admin.email}:${p.admin.password}`).toString('base64')
  t.same(await code('/v2/datapoint/timeseries?project_id=abc&dataPointID=x', auth), [400, 'INVALID_INPUT'])
  const { body } = await p.call(p.admin, 'POST', '/v2/company/project', { name: 'Codes' })
  t.same(await code(`/v2/datapoint/timeseries?project_id=${body.resource.project.id}&dataPointID=nowhere`, auth), [404, 'DATAPOINT_NOT_FOUND'])
  t.same(await code(`/v2/datapoint/timeseries?project_id=${body.resource.project.id}&dataPointID=x&max=-1`, auth), [400, 'VALIDATION_FAILED'])
})
