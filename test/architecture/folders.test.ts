// The map matches the tree (issue 30 item 1): every top-level folder of the repository that
// git tracks has its row in docs/ARCHITECTURE.md's folder table (a row starting with
// | `name/` |), so a folder added without saying what it is and where it stands fails here.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/** Top-level folders holding at least one file git tracks. */
export function trackedFolders(listing: string): string[] {
  return [...new Set(listing.split('\n').filter((p) => p.includes('/')).map((p) => p.split('/')[0]))].sort()
}

/** Folders named by a row of the map's table: | `name/` | ... */
export function describedFolders(markdown: string): string[] {
  return [...markdown.matchAll(/^\| `([^`/]+)\/` \|/gm)].map((m) => m[1]).sort()
}

t.test('the rules read what they must', async (t) => {
  t.same(trackedFolders('README.md\napi/app.ts\napi/routes/x.ts\n.ci/run\ndata/components/a.json'), ['.ci', 'api', 'data'])
  t.same(describedFolders('| Folder | Layer |\n|---|---|\n| `core/` | floor | x |\n| `.ci/` | CI | run |\ntext `api/` here'), ['.ci', 'core'])
})

t.test('every top-level folder git tracks is described in docs/ARCHITECTURE.md', async (t) => {
  const listing = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  const tracked = trackedFolders(listing)
  t.ok(tracked.includes('engine') && tracked.includes('test'), `git lists the tree (${tracked.length} folders)`)
  const described = describedFolders(readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8'))
  t.same(tracked.filter((f) => !described.includes(f)), [], 'a folder without its row in the folder table of docs/ARCHITECTURE.md')
})
