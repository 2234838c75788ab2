// What this machine is like today, to read the other benchmarks' figures against: the same
// code gave bench:vdp 156,249 evaluations/s over HTTP on one boot of this 2-core VM and
// ~55,000 on another (2026-11-26), with an integer loop as fast on both. What differed was
// memory: a random walk over a 4 MiB working set took ~137 ns a step on the slow boot, where
// a last-level cache answers in ~10-40 ns. The engine and SQLite chase pointers (maps, B-tree
// pages, subscriber objects), so their figures follow this latency more than the clock.
// Prints one NDJSON line per probe, medians of 3.
// Usage: npm run bench:machine
import { emit, median, progress } from './lib.ts'

/** ns per step of a random cyclic walk through `bytes` of Int32Array (each step depends on the last: latency, not bandwidth). */
function walkNs(bytes: number): number {
  const n = bytes / 4
  const order = Array.from({ length: n }, (_, i) => i)
  for (let i = n - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); [order[i], order[j]] = [order[j], order[i]] }
  const next = new Int32Array(n)
  for (let i = 0; i < n; i++) next[order[i]] = order[(i + 1) % n]
  const steps = 10_000_000
  let x = 0
  for (let i = 0; i < 100_000; i++) x = next[x] // warm
  const t = process.hrtime.bigint()
  for (let i = 0; i < steps; i++) x = next[x]
  const ns = Number(process.hrtime.bigint() - t) / steps
  if (x < 0) console.log(x) // keeps the walk from being optimised away
  return ns
}

/** ns per iteration of an integer loop (registers only: the core's speed). */
function loopNs(): number {
  const n = 300_000_000
  let x = 0
  const t = process.hrtime.bigint()
  for (let i = 0; i < n; i++) x = (x + (i & 7)) | 0
  const ns = Number(process.hrtime.bigint() - t) / n
  if (x === 42) console.log(x)
  return ns
}

/** ns per small object allocated and dropped (young-generation GC included). */
function allocNs(): number {
  const n = 10_000_000
  let keep: { a: number; b: number }[] = []
  const t = process.hrtime.bigint()
  for (let i = 0; i < n; i++) { keep.push({ a: i, b: i * 0.5 }); if (keep.length > 100_000) keep = [] }
  return Number(process.hrtime.bigint() - t) / n
}

const RUNS = 3
const probes: Array<[string, () => number]> = [
  ['integer_loop_ns', loopNs],
  ['alloc_object_ns', allocNs],
  ...[16, 256, 4096, 65536].map((kib): [string, () => number] => [`random_walk_${kib}KiB_ns`, () => walkNs(kib * 1024)]),
]
for (const [name, probe] of probes) {
  progress(`${name}: ${RUNS} runs`)
  const runs = Array.from({ length: RUNS }, probe)
  emit({ bench: 'machine', probe: name, median: +median(runs).toFixed(2), runs: runs.map((r) => +r.toFixed(2)) })
}
