// Sends the representative traffic of the OpenAPI check (test/helpers/openapi-traffic.ts) to a
// running server, e.g. through a validating proxy (scripts/openapi-prism.sh does it all):
//   npx @stoplight/prism-cli proxy openapi.json http://127.0.0.1:8080 --errors --port 4010
//   LINTEL_ADMIN_EMAIL=... LINTEL_ADMIN_PASSWORD=... node --import tsx scripts/openapi-traffic.ts http://127.0.0.1:4010
// With --errors Prism answers a violation with its own problem (application/problem+json)
// instead of the upstream answer. On a request meant to fail (bad body, no credentials) that
// is Prism refusing an invalid request, as intended; on one meant to succeed it is a mismatch.
import { representativeTraffic } from '../test/helpers/openapi-traffic.ts'

const base = process.argv[2] ?? 'http://127.0.0.1:8080'
const admin = { email: process.env.LINTEL_ADMIN_EMAIL ?? '', password: process.env.LINTEL_ADMIN_PASSWORD ?? '' }
let refused = 0, mismatches = 0
for (const x of await representativeTraffic(base, admin)) {
  const problem = x.contentType.startsWith('application/problem+json')
  const kind = !problem ? 'ok' : x.expect === 'failure' ? 'REFUSED-INVALID-REQUEST' : 'MISMATCH'
  if (kind === 'MISMATCH') mismatches++
  if (kind === 'REFUSED-INVALID-REQUEST') refused++
  process.stdout.write(`${kind} ${x.endpoint} ${x.method} ${x.url} ${x.status}${problem ? ' ' + JSON.stringify((x.body as { validation?: unknown; title?: string }).validation ?? (x.body as { title?: string }).title) : ''}\n`)
}
process.stdout.write(`${mismatches} mismatch(es) on requests meant to succeed; ${refused} invalid request(s) refused by the proxy\n`)
process.exitCode = mismatches > 0 ? 1 : 0
