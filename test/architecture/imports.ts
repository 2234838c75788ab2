// Reads the imports of the platform's source files (no TypeScript compiler needed: import
// and export-from statements and dynamic import() with a string literal), for the
// dependency-direction test (imports.test.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

export interface ImportEdge {
  /** Importing file, relative to the root, with forward slashes. */
  from: string
  /** Imported file (relative specifiers) or package name. */
  to: string
  /** `import type` / `export type`, or every named specifier marked `type`. */
  typeOnly: boolean
  line: number
}

/** Every .ts file under `dirs` (relative to root), skipping .d.ts and generated parsers. */
export function sourceFiles(root: string, dirs: string[]): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(relative(root, path).split('\\').join('/'))
    }
  }
  for (const d of dirs) {
    try { walk(join(root, d)) } catch (err) { if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err }
  }
  return out.sort()
}

// `import ... from 'x'`, `export ... from 'x'` (also over several lines), `import 'x'`.
const STATIC = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g

export function importsOf(root: string, file: string): ImportEdge[] {
  const text = readFileSync(join(root, file), 'utf8').replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/\/\/[^\n]*/g, '')
  const edges: ImportEdge[] = []
  const lineAt = (index: number) => text.slice(0, index).split('\n').length
  const target = (spec: string) => (spec.startsWith('.') ? relative(root, resolve(dirname(join(root, file)), spec)).split('\\').join('/') : spec)
  for (const m of text.matchAll(STATIC)) {
    const spec = m[4] ?? m[5]
    const clause = m[3] ?? ''
    const named = /^\{([\s\S]*)\}$/.exec(clause.trim())
    const typeOnly = Boolean(m[2]) || (named !== null && named[1].split(',').map((s) => s.trim()).filter(Boolean).every((s) => s.startsWith('type ')))
    edges.push({ from: file, to: target(spec), typeOnly, line: lineAt(m.index! + (m[0].startsWith('\n') ? 1 : 0)) })
  }
  for (const m of text.matchAll(DYNAMIC)) edges.push({ from: file, to: target(m[1]), typeOnly: false, line: lineAt(m.index!) })
  return edges
}

/** Strongly connected components with more than one file (or a file importing itself). */
export function cycles(edges: ImportEdge[]): string[][] {
  const graph = new Map<string, string[]>()
  for (const e of edges) {
    if (!graph.has(e.from)) graph.set(e.from, [])
    if (!graph.has(e.to)) graph.set(e.to, [])
    graph.get(e.from)!.push(e.to)
  }
  // Tarjan's algorithm, iterative enough for a few hundred files (recursion depth = path length).
  let index = 0
  const idx = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const out: string[][] = []
  const visit = (v: string) => {
    idx.set(v, index); low.set(v, index); index++
    stack.push(v); onStack.add(v)
    for (const w of graph.get(v)!) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)) }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = []
      let w: string
      do { w = stack.pop()!; onStack.delete(w); scc.push(w) } while (w !== v)
      if (scc.length > 1 || graph.get(v)!.includes(v)) out.push(scc.sort())
    }
  }
  for (const v of graph.keys()) if (!idx.has(v)) visit(v)
  return out
}
