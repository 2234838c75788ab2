// Files a person can read (issue 30, "Done when"): no source file outside bench/ and the tests
// over 400 lines. A module that grows past it has taken a second responsibility: split it
// where the responsibilities part, as the stores and the VDP runtime were split.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const MAX_LINES = 400

/** Source files the rule covers: code git tracks, outside bench/ and test/. */
export function coveredFiles(listing: string): string[] {
  return listing.split('\n').filter((p) => /\.(ts|mts|cts|js|mjs|cjs|pegjs|peggy)$/.test(p) && !/^(bench|test)\//.test(p))
}

export function lineCount(text: string): number {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
}

t.test('the rules read what they must', async (t) => {
  t.same(coveredFiles('engine/a.ts\nbench/b.ts\ntest/c.test.ts\nREADME.md\nformulas/f.peggy\nbin/lintel.js'), ['engine/a.ts', 'formulas/f.peggy', 'bin/lintel.js'])
  t.equal(lineCount('a\nb\n'), 2)
  t.equal(lineCount('a\nb'), 2)
  t.equal(lineCount(''), 0)
})

t.test(`no source file outside bench/ and the tests has more than ${MAX_LINES} lines`, async (t) => {
  const listing = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  const files = coveredFiles(listing)
  t.ok(files.length > 100, `git lists the sources (${files.length} files)`)
  const over = files.map((f) => ({ f, n: lineCount(readFileSync(join(ROOT, f), 'utf8')) })).filter((x) => x.n > MAX_LINES)
  t.same(over.map((x) => `${x.f}: ${x.n} lines`), [], `files over ${MAX_LINES} lines: split them by responsibility`)
})
