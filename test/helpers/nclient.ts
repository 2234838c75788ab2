// haystack-nclient as the tests' Haystack client. Its published build uses `using`
// declarations (explicit resource management), which Node 20 cannot parse; esbuild (here as
// tsx's dependency) lowers them, and the module is compiled at its own path so that its
// `require('haystack-core')` finds the same package the tests use. Nothing else is changed.
import { readFileSync } from 'node:fs'
import { createRequire, Module } from 'node:module'
import { dirname } from 'node:path'
import { transformSync } from 'esbuild'

type NClient = typeof import('haystack-nclient')

const require = createRequire(import.meta.url)

function load(): NClient {
  const file = require.resolve('haystack-nclient')
  const { code } = transformSync(readFileSync(file, 'utf8'), { loader: 'js', format: 'cjs', target: 'node20', sourcefile: file })
  const m = new Module(file) as Module & { _compile(code: string, file: string): void; paths: string[] }
  m.filename = file
  m.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(file))
  m._compile(code, file)
  return m.exports as NClient
}

export const nclient: NClient = load()
