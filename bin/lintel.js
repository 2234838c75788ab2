#!/usr/bin/env node
// Launcher of the operator tool (server/cli.ts): registers the TypeScript loader, then runs it.
import { register } from 'tsx/esm/api'
import { fileURLToPath } from 'node:url'
register()
// `lintel edge ...` starts the edge agent (edge/main.ts), the other end of the wire; everything
// else is the operator tool.
const edge = process.argv[2] === 'edge'
const cli = fileURLToPath(new URL(edge ? '../edge/main.ts' : '../server/cli.ts', import.meta.url))
process.argv[1] = cli
if (edge) process.argv.splice(2, 1)
await import(cli)
