// The console is plain JavaScript for the browser (no build step), type-checked from its
// JSDoc and the DOM's types by TypeScript (console/tsconfig.json, checkJs): a misspelt
// property or a wrong call fails here rather than in a user's browser.
import t from 'tap'
import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

t.test('the console type-checks', async (t) => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const result = await new Promise<{ code: number; out: string }>((resolve) => {
    execFile(process.execPath, [tsc, '-p', join(ROOT, 'console', 'tsconfig.json')], { cwd: ROOT, timeout: 300_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr }))
  })
  t.equal(result.out.trim(), '', 'no type error')
  t.equal(result.code, 0, 'tsc exits 0')
})
