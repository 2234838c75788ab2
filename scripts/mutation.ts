// Mutation testing of the safety-critical modules (issue 36 item 5): `npm run test:mutation`.
// Runs Stryker once per module of scripts/mutation-modules.json, each against the test files
// that cover it only (a module's mutants never wait for the whole suite), prints one JSON line
// per module with its score, and fails when a module's score is below its floor.
//   npm run test:mutation                  every module
//   npm run test:mutation -- login-throttle  the named modules only
// Stryker's tap runner runs each test file with node itself (not the tap CLI), so the files
// are loaded through tsx; coverage per test lets a mutant run only the tests that reach it.
import { readFileSync, rmSync } from 'node:fs'
import { cpus } from 'node:os'
import { Stryker } from '@stryker-mutator/core'
import type { LogLevel } from '@stryker-mutator/api/core'

interface Module { name: string; mutate: string[]; tests: string[]; floor: number }

const config = JSON.parse(readFileSync(new URL('./mutation-modules.json', import.meta.url), 'utf8')) as { modules: Module[] }
const only = process.argv.slice(2)
const unknown = only.filter((n) => !config.modules.some((m) => m.name === n))
if (unknown.length > 0) throw new Error(`unknown module(s) ${unknown.join(', ')}; known: ${config.modules.map((m) => m.name).join(', ')}`)
const modules = config.modules.filter((m) => only.length === 0 || only.includes(m.name))

const KILLED = new Set(['Killed', 'Timeout'])
// Mutants that cannot be judged (a compile error, a runtime error of the mutant) count neither way.
const JUDGED = new Set(['Killed', 'Timeout', 'Survived', 'NoCoverage'])

const below: string[] = []
for (const m of modules) {
  const started = Date.now()
  const tempDirName = `.stryker-tmp/${m.name}`
  const results = await new Stryker({
    testRunner: 'tap',
    tap: { testFiles: m.tests, nodeArgs: ['--import', 'tsx'] },
    plugins: ['@stryker-mutator/tap-runner'],
    mutate: m.mutate,
    coverageAnalysis: 'perTest',
    concurrency: Math.max(1, Math.min(2, cpus().length)),
    reporters: process.env.STRYKER_REPORT ? ['clear-text'] : [],
    tempDirName,
    // Only what the tests load: the sandbox is a copy of the project without these.
    ignorePatterns: ['bench', 'var', 'docs', '*.log', '.stryker-tmp'],
    // A mutant that makes a test hang (a wait that never ends) counts as killed after this.
    timeoutMS: 20_000,
    // Type errors a mutant introduces do not matter here: tsx strips types.
    disableTypeChecks: true,
    logLevel: 'warn' as LogLevel,
    cleanTempDir: true,
  }).runMutationTest()
  rmSync(tempDirName, { recursive: true, force: true })
  const judged = results.filter((r) => JUDGED.has(r.status))
  const killed = judged.filter((r) => KILLED.has(r.status)).length
  const score = judged.length === 0 ? 0 : Math.round((killed / judged.length) * 1000) / 10
  const survived = judged.filter((r) => !KILLED.has(r.status)).map((r) => `${r.fileName}:${r.location.start.line} ${r.mutatorName}${r.status === 'NoCoverage' ? ' (no coverage)' : ''}`)
  console.log(JSON.stringify({ module: m.name, score, floor: m.floor, killed, mutants: judged.length, seconds: Math.round((Date.now() - started) / 1000), survived }))
  if (score < m.floor) below.push(`${m.name}: ${score}% < ${m.floor}%`)
}
if (below.length > 0) {
  console.error(`mutation score below the floor: ${below.join('; ')}`)
  process.exit(1)
}
