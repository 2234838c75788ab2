// Dependency direction (DESIGN.md "Layout and dependency direction", issue 16 item 7): every
// import between top-level folders of the platform must point the way DESIGN.md draws, and no
// files import each other in a cycle. A new top-level folder fails here until it is added to
// RULES (and to DESIGN.md, with the reason). Known violations are listed in KNOWN with why;
// a violation not listed fails, and a listed one that is gone is reported so the list shrinks.
import t from 'tap'
import { dirname, join } from 'node:path'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { cycles, importsOf, sourceFiles, type ImportEdge } from './imports.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Folders a folder may import from; `types`: folders it may import types from only. */
const RULES: Record<string, { may: string[]; types?: string[] }> = {
  // server/: the process shell (composition root, operator CLI, config, lock, preflight); it
  // may import every layer below it, and nothing imports it (no folder lists it in `may`).
  server: { may: ['api', 'ingest', 'engine', 'catalog', 'protocol', 'formulas', 'core'] },
  api: { may: ['ingest', 'engine', 'catalog', 'protocol', 'core'] },
  ingest: { may: ['engine', 'catalog', 'protocol', 'core'] },
  engine: { may: ['formulas', 'protocol', 'core'], types: ['catalog'] },
  formulas: { may: ['core'] },
  catalog: { may: ['core'] },
  protocol: { may: ['core'] },
  edge: { may: ['protocol', 'formulas', 'core'] },
  console: { may: [] },
  // core/: the neutral floor every layer stands on (typed errors with their codes, the
  // identifier rule, the choice of the SQLite driver per Node version); it imports nothing.
  core: { may: [] },
}
/** Top-level folders that are not part of the platform's code (tests, tools, data, documentation; test-artifacts/: screenshots of the browser tests, git-ignored). */
const OUTSIDE = new Set(['test', 'bench', 'scripts', 'bin', 'data', 'docs', 'node_modules', 'dist', '.tap', '.scratch', '.ci', '.git', '.cache', 'test-artifacts'])

/** Violations present today, `from -> to`, each with why (none since core/ holds the errors). */
const KNOWN = new Set<string>([])
/** Cycles through type-only imports (erased at run time, but still a knot); none today. */
const KNOWN_TYPE_CYCLES = new Set<string>([])

const folders = readdirSync(ROOT, { withFileTypes: true }).filter((d) => d.isDirectory() && !OUTSIDE.has(d.name)).map((d) => d.name)
const files = sourceFiles(ROOT, folders)
const edges = files.flatMap((f) => importsOf(ROOT, f))
const folderOf = (path: string) => (path.includes('/') ? path.split('/')[0] : undefined)
const local = (e: ImportEdge) => !e.to.startsWith('node:') && folderOf(e.to) !== undefined && (folders.includes(folderOf(e.to)!) || OUTSIDE.has(folderOf(e.to)!))

t.test('the reader sees the imports it must see', async (t) => {
  t.ok(files.length > 50, `${files.length} source files`)
  const main = edges.filter((e) => e.from === 'server/observation-path.ts').map((e) => `${e.to}${e.typeOnly ? ' (type)' : ''}`)
  t.ok(main.includes('engine/store/sqlite-store.ts'), 'a value import')
  t.ok(main.includes('engine/store/port.ts (type)'), 'a type import')
  t.ok(main.includes('engine/log/kafka-log.ts'), 'a dynamic import()')
})

t.test('nothing imports the process shell (server/)', async (t) => {
  t.same(Object.entries(RULES).filter(([, r]) => r.may.includes('server') || (r.types ?? []).includes('server')).map(([f]) => f), [], 'no rule lets a folder import server/')
  const into = edges.filter(local).filter((e) => folderOf(e.to) === 'server' && folderOf(e.from) !== 'server' && !OUTSIDE.has(folderOf(e.from)!))
  t.same(into.map((e) => `${e.from}:${e.line}`), [], 'no platform file imports server/')
})

t.test('every top-level folder has a rule', async (t) => {
  t.same(folders.filter((f) => !(f in RULES)), [], 'a new top-level folder needs its place in DESIGN.md and in RULES')
})

t.test('imports between folders point the way DESIGN.md draws', async (t) => {
  const found = new Map<string, ImportEdge>()
  for (const e of edges.filter(local)) {
    const from = folderOf(e.from)!
    const to = folderOf(e.to)!
    if (from === to) continue
    const rule = RULES[from]
    if (!rule) continue // reported by the test above
    const ok = rule.may.includes(to) || (e.typeOnly && (rule.types ?? []).includes(to))
    if (!ok) found.set(`${e.from} -> ${e.to}`, e)
  }
  const unexpected = [...found].filter(([k]) => !KNOWN.has(k)).map(([k, e]) => `${e.from}:${e.line} imports ${e.typeOnly ? 'types of ' : ''}${e.to}`)
  t.same(unexpected, [], 'no import against the dependency direction')
  const gone = [...KNOWN].filter((k) => !found.has(k))
  if (gone.length > 0) t.comment(`fixed, remove from KNOWN: ${gone.join(', ')}`)
  t.comment(`known exceptions: ${[...KNOWN].filter((k) => found.has(k)).length}`)
})

t.test('the catalog port stands below both adapters (issue 30 item 6)', async (t) => {
  // catalog/*.ts: the port, records and pure rules; catalog/sqlite/ and catalog/postgres/ the
  // adapters. Only catalog/index.ts, which opens the configured one, names both.
  const adapterOf = (path: string) => /^catalog\/(sqlite|postgres)\//.exec(path)?.[1]
  const bad = edges.filter(local).filter((e) => {
    if (!e.from.startsWith('catalog/') || !e.to.startsWith('catalog/')) return false
    const from = adapterOf(e.from)
    const to = adapterOf(e.to)
    if (to === undefined || from === to) return false
    return from !== undefined || e.from !== 'catalog/index.ts'
  }).map((e) => `${e.from}:${e.line} imports ${e.to}`)
  t.same(bad, [], 'no adapter imports the other, and the port and rules import neither')
  const drivers = edges.filter((e) => /^catalog\/[^/]+\.ts$/.test(e.from) && ['better-sqlite3', 'pg'].includes(e.to)).map((e) => `${e.from}:${e.line} imports ${e.to}`)
  t.same(drivers, [], 'the port and rules name no driver')
  t.ok(files.some((f) => f.startsWith('catalog/sqlite/')) && files.some((f) => f.startsWith('catalog/postgres/')), 'both adapter folders are read')
})

t.test('no import cycles', async (t) => {
  const inside = edges.filter(local)
  t.same(cycles(inside.filter((e) => !e.typeOnly)), [], 'no cycle of run-time imports')
  const typeCycles = cycles(inside).filter((c) => !c.some((f) => KNOWN_TYPE_CYCLES.has(f)))
  t.same(typeCycles, [], 'no cycle through type imports either (except the known one)')
})

t.test('the cycle check fails on a cycle (the app.ts <-> route plugin knot of issue 15, item 10)', async (t) => {
  const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, typeOnly, line: 1 })
  const knot = [edge('server/main.ts', 'api/app.ts'), edge('api/app.ts', 'api/routes/users.ts'), edge('api/routes/users.ts', 'api/app.ts', true)]
  t.same(cycles(knot), [['api/app.ts', 'api/routes/users.ts']], 'a type-only import back to app.ts closes a cycle')
  t.same(cycles(knot.filter((e) => !e.typeOnly)), [], 'the run-time imports alone have none')
  t.same(cycles([edge('api/x.ts', 'api/x.ts')]), [['api/x.ts']], 'a file importing itself')
  const fixed = [...knot.slice(0, 2), edge('api/routes/users.ts', 'api/route-context.ts', true), edge('api/app.ts', 'api/route-context.ts', true)]
  t.same(cycles(fixed), [], 'RouteContext in its own module: no cycle')
})
