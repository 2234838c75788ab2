// Sends the representative traffic of the OpenAPI check (test/helpers/openapi-traffic.ts) to a
// running server, e.g. through a validating proxy:
//   npx @stoplight/prism-cli proxy openapi.json http://127.0.0.1:8080 --errors --port 4010
//   LINTEL_ADMIN_EMAIL=... LINTEL_ADMIN_PASSWORD=... node --import tsx scripts/openapi-traffic.ts http://127.0.0.1:4010
// Prints one line per exchange; with --errors Prism answers a violation with a 4xx/5xx problem
// (application/problem+json) instead of the upstream answer, so those lines show it.
import { representativeTraffic } from '../test/helpers/openapi-traffic.ts'

const base = process.argv[2] ?? 'http://127.0.0.1:8080'
const admin = { email: process.env.LINTEL_ADMIN_EMAIL ?? '', password: process.env.LINTEL_ADMIN_PASSWORD ?? '' }
let violations = 0
for (const x of await representativeTraffic(base, admin)) {
  const problem = x.contentType.startsWith('application/problem+json')
  if (problem) violations++
  process.stdout.write(`${problem ? 'VIOLATION' : 'ok'} ${x.endpoint} ${x.method} ${x.url} ${x.status}${problem ? ' ' + JSON.stringify(x.body) : ''}\n`)
}
process.stdout.write(`${violations} violation(s)\n`)
