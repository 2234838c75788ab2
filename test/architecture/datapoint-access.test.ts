// One request-side access resolver (issue 30 item 3): route files ask api/datapoint-access.ts
// with their endpoint number and never apply the TagAuth matcher (core/tag-auth.ts) or a
// caller's datapoint filter themselves, so the "find the datapoint, apply the TagAuths, 404
// for unknown and unreadable alike" rule and its texts cannot drift apart again.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { importsOf, sourceFiles } from './imports.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const MATCHER = /\b(canAccessDatapoint|tagAuthMatches)\b/
const FILTER = /\.datapointFilter\(/
/**
 * Route files that read a datapoint filter, each with why. mqtt-accounts.ts stores the creator's
 * filters with a new MQTT account (its reach, DESIGN.md "MQTT accounts"): a snapshot, not a check.
 */
const FILTER_READERS = new Set(['api/routes/mqtt-accounts.ts'])

/** What a route file does against the rule, one text per finding. */
function findings(file: string, text: string, imports: string[]): string[] {
  const out: string[] = []
  if (imports.includes('core/tag-auth.ts') || imports.includes('api/permissions.ts') && MATCHER.test(text)) out.push(`${file} imports the TagAuth matcher`)
  text.split('\n').forEach((line, i) => {
    if (MATCHER.test(line)) out.push(`${file}:${i + 1} calls the TagAuth matcher`)
    if (FILTER.test(line) && !FILTER_READERS.has(file)) out.push(`${file}:${i + 1} reads a datapoint filter`)
  })
  return out
}

t.test('no route file applies the TagAuth matcher or a datapoint filter itself', async (t) => {
  const routes = sourceFiles(ROOT, ['api/routes'])
  t.ok(routes.length >= 15, `${routes.length} route files`)
  const found = routes.flatMap((f) => findings(f, readFileSync(join(ROOT, f), 'utf8'), importsOf(ROOT, f).map((e) => e.to)))
  t.same(found, [], 'route files ask api/datapoint-access.ts')
  t.ok(routes.filter((f) => importsOf(ROOT, f).some((e) => e.to === 'api/datapoint-access.ts')).length >= 8, 'the routes that touch datapoints use the resolver')
})

t.test('the check finds a route that matches TagAuths itself', async (t) => {
  const text = "import { canAccessDatapoint } from '../../core/tag-auth.ts'\nconst ok = canAccessDatapoint(req.permissions.datapointFilter(52, pid), dp, 'read')\n"
  t.same(findings('api/routes/x.ts', text, ['core/tag-auth.ts']), [
    'api/routes/x.ts imports the TagAuth matcher',
    'api/routes/x.ts:1 calls the TagAuth matcher',
    'api/routes/x.ts:2 calls the TagAuth matcher',
    'api/routes/x.ts:2 reads a datapoint filter',
  ])
  t.same(findings('api/routes/mqtt-accounts.ts', 'const reach = perms.datapointFilter(50, pid)', []), [], 'the recorded exception')
})

t.test('ingest and api take the matcher from core/, not from each other', async (t) => {
  const files = sourceFiles(ROOT, ['ingest', 'api'])
  const users = files.filter((f) => importsOf(ROOT, f).some((e) => e.to === 'core/tag-auth.ts'))
  t.ok(users.includes('ingest/mqtt/reach.ts'), 'the MQTT reach check')
  t.ok(users.includes('api/datapoint-access.ts'), 'the request-side resolver')
  t.notOk(/\bdatapointAccess\b/.test(readFileSync(join(ROOT, 'ingest/mqtt/broker.ts'), 'utf8')), 'the broker has no matcher handed in')
})
