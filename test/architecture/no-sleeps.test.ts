// No fixed sleeps in tests (issue 30 item 2). A test waits for the cause it can observe with a
// bound (test/helpers/wait.ts: waitFor, settleWithin, nextEvent, isSettled) or moves the
// virtual clock (core/clock/virtual-clock.ts); it never sleeps a fixed time and hopes.
//
// What counts as a fixed sleep, in any .ts file under test/ except test/helpers/wait.ts (the
// one place a poll interval lives):
//   1. a timer whose callback is a bare resolver: `setTimeout(r, ...)`, `setTimeout(resolve,
//      ...)` (also res, done, ok, next): a promise that resolves after a fixed time;
//   2. an import of `node:timers/promises` (its setTimeout/scheduler.wait are sleeps).
// Allowed: setTimeout with a function callback, the form of a bound (reject after N ms, kill a
// child after N ms, resolve 'no answer' in a race); setInterval, which drives work (a Kafka
// poll, an event-loop probe) rather than making the test wait; setImmediate (one turn of the
// loop, not a time); the virtual clock. This file is exempt (its examples are sleeps).
// KNOWN would list sleeps still in the tree, per file with their count and why; it is empty,
// so a sleep anywhere fails.
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const TEST = join(ROOT, 'test')
const EXEMPT = new Set(['test/helpers/wait.ts', 'test/architecture/no-sleeps.test.ts'])

const SLEEP = [
  { name: 'timer resolving a promise', re: /setTimeout\(\s*(?:r|res|resolve|done|ok|next)\s*,/g },
  { name: 'node:timers/promises', re: /['"](?:node:)?timers\/promises['"]/g },
]

/**
 * Sleeps left, `file` → count, each with why it is not yet a bounded wait. Empty since issue
 * 30 item 2 was done: any sleep in a test fails.
 */
const KNOWN: Record<string, { count: number; why: string }> = {}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []))
}

export function sleepsIn(text: string): { kind: string; line: number }[] {
  const found: { kind: string; line: number }[] = []
  for (const { name, re } of SLEEP) {
    for (const m of text.matchAll(re)) found.push({ kind: name, line: text.slice(0, m.index).split('\n').length })
  }
  return found
}

t.test('the rule finds each form of sleep and allows bounds', async (t) => {
  t.equal(sleepsIn('await new Promise((r) => setTimeout(r, 50))').length, 1)
  t.equal(sleepsIn('await new Promise((resolve) => setTimeout(resolve, 3 * every))').length, 1)
  t.equal(sleepsIn("import { setTimeout as sleep } from 'node:timers/promises'").length, 1)
  t.equal(sleepsIn("setTimeout(() => reject(new Error('no message')), ms)").length, 0, 'a bound')
  t.equal(sleepsIn("setTimeout(() => child.kill('SIGKILL'), 15_000)").length, 0, 'a bound')
  t.equal(sleepsIn('const poll = setInterval(() => raw.poll(), 5)').length, 0, 'drives work')
  t.equal(sleepsIn('await new Promise((r) => setImmediate(r))').length, 0, 'a turn, not a time')
})

t.test('no test file sleeps a fixed time beyond the known list', async (t) => {
  const counts = new Map<string, { count: number; lines: string[] }>()
  for (const f of files(TEST)) {
    const rel = relative(ROOT, f).split('\\').join('/')
    if (EXEMPT.has(rel)) continue
    const found = sleepsIn(readFileSync(f, 'utf8'))
    if (found.length > 0) counts.set(rel, { count: found.length, lines: found.map((x) => `${rel}:${x.line} (${x.kind})`) })
  }
  const grown = [...counts].filter(([f, c]) => c.count > (KNOWN[f]?.count ?? 0)).flatMap(([, c]) => c.lines)
  t.same(grown, [], 'a fixed sleep in a test: wait for the cause with a bound (test/helpers/wait.ts) or use the VirtualClock (core/clock)')
  const shrunk = Object.entries(KNOWN).filter(([f, k]) => (counts.get(f)?.count ?? 0) < k.count).map(([f, k]) => `${f}: ${counts.get(f)?.count ?? 0} < ${k.count}`)
  if (shrunk.length > 0) t.comment(`sleeps removed, lower KNOWN: ${shrunk.join('; ')}`)
})
