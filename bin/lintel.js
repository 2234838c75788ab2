#!/usr/bin/env node
// Launcher of the operator tool (server/cli.ts): registers the TypeScript loader, then runs it.
import { register } from 'tsx/esm/api'
import { fileURLToPath } from 'node:url'
register()
// `lintel edge ...` starts the edge agent (edge/main.ts), the other end of the wire; `lintel
// live ...` a client of the live WebSocket (scripts/live-tail.ts); everything else is the operator tool.
const sub = { edge: '../edge/main.ts', live: '../scripts/live-tail.ts' }[process.argv[2]]
const cli = fileURLToPath(new URL(sub ?? '../server/cli.ts', import.meta.url))
process.argv[1] = cli
if (sub) process.argv.splice(2, 1)
await import(cli)
