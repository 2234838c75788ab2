// Durability of the SQLite store: once append() resolves, the observations survive kill -9
// of the process. A child (test/fixtures/store-writer.ts) appends batches and prints an ack
// after each resolved append; it is killed with SIGKILL mid-stream, the store is reopened
// and every acknowledged batch must be there, complete (batches are also atomic).
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { SERIES, SPAN, batchSize, durabilityBatch } from '../fixtures/durability-batches.ts'

const fixture = fileURLToPath(new URL('../fixtures/store-writer.ts', import.meta.url))
const root = fileURLToPath(new URL('../..', import.meta.url))

/** Runs the writer until `acks` acknowledgements, kills it, returns the acknowledged batches. */
async function writeAndKill(dir: string, first: number, acks: number): Promise<{ acked: Set<number>; signal: NodeJS.Signals | null }> {
  const { NODE_OPTIONS: _ignored, ...env } = process.env
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, dir, String(first)], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
  const acked = new Set<number>()
  let out = ''
  let err = ''
  let killed = false
  child.stderr!.on('data', (d) => { err += d })
  child.stdout!.on('data', (d) => {
    out += d
    const lines = out.split('\n')
    out = lines.pop()!
    for (const line of lines) {
      const m = /^ack (\d+)$/.exec(line)
      if (m) acked.add(Number(m[1]))
    }
    if (!killed && acked.size >= acks) {
      killed = true
      // A little later, so appends (some large) are in flight at the kill.
      setTimeout(() => child.kill('SIGKILL'), Math.floor(Math.random() * 15))
    }
  })
  const limit = setTimeout(() => child.kill('SIGKILL'), 60_000)
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (c, s) => resolve([c, s])))
  clearTimeout(limit)
  if (!killed) throw new Error(`writer stopped on its own (code ${code}, signal ${signal}) after ${acked.size} acks: ${err}`)
  return { acked, signal }
}

t.test('every acknowledged append survives SIGKILL of the process', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lintel-durability-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const allAcked: number[] = []
  for (const [round, first] of [[1, 0], [2, 10_000]]) {
    // Round 2 appends new batches to the recovered file and is killed again.
    const { acked, signal } = await writeAndKill(dir, first, 60)
    t.equal(signal, 'SIGKILL', `round ${round}: killed by SIGKILL`)
    t.ok(acked.size >= 60, `round ${round}: ${acked.size} batches acknowledged before the kill`)
    allAcked.push(...acked)
    const store = await openSqliteStore({ dir })
    try {
      const lost: number[] = []
      const torn: number[] = []
      for (let k = first; k <= Math.max(...acked) + 64; k++) {
        let found = 0
        for (let s = 1; s <= SERIES; s++) found += await store.count(s, k * SPAN, (k + 1) * SPAN)
        if (acked.has(k) && found !== batchSize(k)) lost.push(k)
        if (found !== 0 && found !== batchSize(k)) torn.push(k)
      }
      t.same(lost, [], `round ${round}: no acknowledged batch lost or partial`)
      t.same(torn, [], `round ${round}: every batch is all or nothing`)
      // Values too, for a few acknowledged batches of this and the earlier round.
      for (const k of [...allAcked.slice(0, 3), ...[...acked].slice(-3)]) {
        const want = durabilityBatch(k).filter((o) => o.series === 1).map((o) => ({ time: o.time, value: o.value }))
        t.same(await store.read(1, { start: k * SPAN, end: (k + 1) * SPAN }), want, `round ${round}: batch ${k} values`)
      }
    } finally {
      await store.close()
    }
  }
})
