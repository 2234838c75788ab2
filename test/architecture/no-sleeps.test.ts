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
// KNOWN lists the sleeps still in the tree, per file with their count and why; a new one
// anywhere fails, and a count that dropped is reported so the list shrinks.
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

/** Sleeps left, `file` → count, each with why they are not yet a bounded wait. */
const KNOWN: Record<string, { count: number; why: string }> = {
  'test/catalog/contract.ts': { count: 2, why: 'a deliberate await outside the catalog inside a transaction test (lane failtests/catalog owns it)' },
  'test/helpers/live-platform.ts': { count: 1, why: 'bounded poll of a child process start (deadline), to move to waitFor' },
  'test/engine/blobs/fs-store.test.ts': { count: 1, why: 'bounded poll (deadline) of open file handles, to move to waitFor' },
  'test/engine/blobs/durable-file.test.ts': { count: 1, why: 'waits 50 ms before asserting a file is still absent: needs a gate' },
  'test/engine/sqlite-store.test.ts': { count: 2, why: 'bounded polls (deadline) of the tail and WAL frames, to move to waitFor' },
  'test/api/bounded-requests.test.ts': { count: 1, why: 'lets the request time limit pass in real time (server-side timer, not on the clock)' },
  'test/e2e/scaled.test.ts': { count: 1, why: 'bounded poll helper of the multi-process test (deadline)' },
  'test/readme/readme.test.ts': { count: 3, why: 'bounded polls of the README server (lane docs owns the file)' },
}

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
