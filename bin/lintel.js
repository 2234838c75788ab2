#!/usr/bin/env node
// Launcher of the operator tool (api/cli.ts): registers the TypeScript loader, then runs it.
import { register } from 'tsx/esm/api'
import { fileURLToPath } from 'node:url'
register()
const cli = fileURLToPath(new URL('../api/cli.ts', import.meta.url))
process.argv[1] = cli
await import(cli)
