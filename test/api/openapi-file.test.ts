// The OpenAPI document the tools check is the one clients get (issue 15, item 8): the file
// `npm run lint:openapi` (redocly) and scripts/openapi-prism.sh (prism proxy) read is written by
// scripts/openapi.ts and must equal what a running server serves at /v2/openapi.json; and a
// parameter the server fills in by default is not required of clients (prism refused setpoint
// requests without `limit`).
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { livePlatform } from '../helpers/live-platform.ts'

t.test('the file redocly and prism check (scripts/openapi.ts) is the document the server serves', async (t) => {
  const { platform } = await livePlatform(t)
  const served = await (await fetch(platform.address + '/v2/openapi.json')).json() as any
  const file = join(t.testdir(), 'openapi.json')
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/openapi.ts', file], { stdio: 'ignore' })
  const written = JSON.parse(readFileSync(file, 'utf8'))
  t.same(Object.keys(written.paths).sort(), Object.keys(served.paths).sort(), 'the same paths, the document endpoints (80-95) included')
  t.same(written, served, 'the same document')
})

t.test('a parameter the server fills in by default is not required of clients', async (t) => {
  const { platform, http, project } = await livePlatform(t)
  const doc = await (await fetch(platform.address + '/v2/openapi.json')).json() as any
  const param = (path: string, method: string, name: string) => doc.paths[path][method].parameters.find((p: { name: string }) => p.name === name)
  t.match(param('/v2/datapoint/setpoints', 'get', 'limit'), { required: false, schema: { default: 100 } }, '143 limit')
  for (const name of ['priority', 'acked', 'dryrun', 'keep_out_of_service']) t.equal(param('/v2/datapoint/setpoint', 'post', name).required, false, `141 ${name}`)
  t.equal(param('/v2/datapoint/setpoint', 'post', 'value').required, true, '141 value has no default: required')
  // The server really fills it in: a call without limit passes validation (the datapoint is unknown: 404).
  const pid = await project('Defaults')
  const res = await http('GET', `/v2/datapoint/setpoints?project_id=${pid}&dataPointID=none`)
  t.equal(res.status, 404, 'no limit: not refused as invalid (400)')
  t.match(res.body.error, /not found/)
})
