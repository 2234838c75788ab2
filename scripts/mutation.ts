// Mutation testing of the safety-critical modules (issue 36 item 5): `npm run test:mutation`.
// Runs Stryker once per module of scripts/mutation-modules.json, each against the test files
// that cover it only (a module's mutants never wait for the whole suite), prints one JSON line
// per module with its score, and fails when a module's score is below its floor.
//   npm run test:mutation                    every module
//   npm run test:mutation -- login-throttle  the named modules only
//   npm run test:mutation -- --ci            the modules marked "ci" (what .ci/run enforces)
// Incremental (Stryker's incremental mode): each module's results are kept in
// scripts/mutation/<module>.json, committed; a run tests again only the mutants whose code or
// covering tests changed and takes the others' results from the file, so CI pays for what a
// change touched (the whole module only when its file is missing). Refresh a file after a
// change with `npm run test:mutation -- <module>` and commit it; `--force` runs every mutant.
// Stryker's tap runner runs each test file with node itself (not the tap CLI), so the files
// are loaded through tsx; coverage per test lets a mutant run only the tests that reach it.
import { readFileSync, rmSync } from 'node:fs'
import { cpus } from 'node:os'
import { relative } from 'node:path'
import { Stryker } from '@stryker-mutator/core'
import type { LogLevel } from '@stryker-mutator/api/core'

interface Module { name: string; mutate: string[]; tests: string[]; floor: number; ci?: boolean }

const config = JSON.parse(readFileSync(new URL('./mutation-modules.json', import.meta.url), 'utf8')) as { modules: Module[] }
const args = process.argv.slice(2)
const ci = args.includes('--ci')
const force = args.includes('--force')
const only = args.filter((a) => !a.startsWith('--'))
const unknown = only.filter((n) => !config.modules.some((m) => m.name === n))
if (unknown.length > 0) throw new Error(`unknown module(s) ${unknown.join(', ')}; known: ${config.modules.map((m) => m.name).join(', ')}`)
const modules = config.modules.filter((m) => (only.length === 0 || only.includes(m.name)) && (!ci || m.ci))

const KILLED = new Set(['Killed', 'Timeout'])
// Mutants that cannot be judged (a compile error, a runtime error of the mutant) count neither way.
const JUDGED = new Set(['Killed', 'Timeout', 'Survived', 'NoCoverage'])

// The test files run under node, not the tap CLI: give them the bound of package.json "tap"
// (a test's own time-out is 30 s outside the CLI, too short on 2 busy cores).
process.env.TAP_TIMEOUT ??= '600'

const run = (m: Module, tempDirName: string) => new Stryker({
  testRunner: 'tap',
  tap: { testFiles: m.tests, nodeArgs: ['--import', 'tsx'] },
  plugins: ['@stryker-mutator/tap-runner'],
  mutate: m.mutate,
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: `scripts/mutation/${m.name}.json`,
  force,
  concurrency: Math.max(1, Math.min(2, cpus().length)),
  reporters: process.env.STRYKER_REPORT ? ['clear-text'] : [],
  tempDirName,
  // Only what the tests load: the sandbox is a copy of the project without these.
  ignorePatterns: ['bench', 'var', 'docs', '*.log', '.stryker-tmp', '.tap', 'coverage'],
  // A mutant that makes a test hang (a wait that never ends) counts as killed after this.
  timeoutMS: 20_000,
  // Type errors a mutant introduces do not matter here: tsx strips types.
  disableTypeChecks: true,
  logLevel: 'warn' as LogLevel,
  cleanTempDir: true,
}).runMutationTest()

const below: string[] = []
for (const m of modules) {
  const started = Date.now()
  const tempDirName = `.stryker-tmp/${m.name}`
  const results = await run(m, tempDirName).catch((err: Error) => {
    // The module's tests failing without any mutant (the initial run) fails the step too.
    below.push(`${m.name}: ${err.message}`)
    return undefined
  })
  rmSync(tempDirName, { recursive: true, force: true })
  if (!results) continue
  const judged = results.filter((r) => JUDGED.has(r.status))
  const killed = judged.filter((r) => KILLED.has(r.status)).length
  const score = judged.length === 0 ? 0 : Math.round((killed / judged.length) * 1000) / 10
  const survived = judged.filter((r) => !KILLED.has(r.status)).map((r) => `${relative(process.cwd(), r.fileName)}:${r.location.start.line} ${r.mutatorName}${r.status === 'NoCoverage' ? ' (no coverage)' : ''}`)
  console.log(JSON.stringify({ module: m.name, score, floor: m.floor, killed, mutants: judged.length, seconds: Math.round((Date.now() - started) / 1000), survived }))
  if (score < m.floor) below.push(`${m.name}: ${score}% < ${m.floor}%`)
}
// The parent of the sandboxes too: a top-level folder left behind fails test/architecture.
rmSync('.stryker-tmp', { recursive: true, force: true })
if (below.length > 0) {
  console.error(`mutation testing failed: ${below.join('; ')}`)
  process.exit(1)
}
