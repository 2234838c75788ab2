// `npx lintel live`: a small client of the live WebSocket (GET /v2/live, docs/live.md), for the
// shell and the guide. Prints every frame it receives, one JSON object a line, and exits:
//   --until-live       after the resume's `live` frame (with --since: what the store held)
//   --count N          after N observations (live or filled)
//   --then 'command'   runs a shell command once subscribed (e.g. a curl that ingests)
// Usage: npx lintel live --api http://127.0.0.1:8080 -u email:password --project 1
//          --datapoints 'a,b' | --all  [--alerts] [--since 2024-03-31T00:00:00Z] [--timeout 30]
import { execSync } from 'node:child_process'
import { parseArgs } from 'node:util'
import WebSocket from 'ws'
import type { ServerMessage } from '../protocol/live-messages.ts'

const { values: o } = parseArgs({
  options: {
    api: { type: 'string', default: process.env.API ?? 'http://127.0.0.1:8080' }, u: { type: 'string' }, token: { type: 'string' },
    project: { type: 'string' }, datapoints: { type: 'string' }, all: { type: 'boolean' }, alerts: { type: 'boolean' }, since: { type: 'string' },
    'until-live': { type: 'boolean' }, count: { type: 'string' }, then: { type: 'string' }, timeout: { type: 'string', default: '30' },
  },
})
const fail = (text: string): never => { process.stderr.write(`lintel live: ${text}\n`); process.exit(1) }
if (!o.project) fail('--project is required')
if (!o.all && !o.datapoints) fail('name --datapoints a,b or --all')
const authorization = o.token ? `Bearer ${o.token}` : o.u ? `Basic ${Buffer.from(o.u).toString('base64')}` : fail('give -u email:password or --token')
const ws = new WebSocket(o.api!.replace(/^http/, 'ws') + '/v2/live', { headers: { authorization } })
const timer = setTimeout(() => fail(`nothing more within ${o.timeout} s`), Number(o.timeout) * 1000)
let observations = 0
const done = () => { clearTimeout(timer); ws.close(1000); process.exitCode = 0 }

ws.on('unexpected-response', (_req, res) => fail(`the upgrade was refused: HTTP ${res.statusCode}`))
ws.on('error', (err) => fail(err.message))
ws.on('close', (code, reason) => { if (code !== 1000 && code !== 1005) fail(`closed ${code} ${reason.toString()}`) })
ws.on('open', () => ws.send(JSON.stringify({
  type: 'subscribe', project_id: Number(o.project), datapoints: o.all ? 'all' : o.datapoints!.split(','), alerts: o.alerts === true,
  ...(o.since ? { since: o.since } : {}),
})))
ws.on('message', (data) => {
  const text = data.toString()
  process.stdout.write(text + '\n')
  const m = JSON.parse(text) as ServerMessage
  if (m.type === 'error') fail(m.error)
  if (m.type === 'subscribed' && o.then) execSync(o.then, { stdio: ['ignore', 'ignore', 'inherit'] })
  if (m.type === 'observations') observations += m.data.length
  if ((m.type === 'live' && o['until-live']) || (o.count && observations >= Number(o.count))) done()
})
