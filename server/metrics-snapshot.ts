// The process's metrics for the operator (issue 9, item 9): GET /v2/system/metrics shows a
// company its own counters only, so the whole-process view goes to the operator tool
// instead. A running server writes its counters into the data directory every few seconds
// (write to a temporary file, then rename: a reader never sees half a file), and
// `npx lintel metrics` prints the latest snapshot. Nothing of it is reachable over HTTP.
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const METRICS_FILE = 'metrics.json'
export const SNAPSHOT_EVERY_MS = 5000

export interface MetricsSnapshot { written_at: string; pid: number; metrics: Record<string, number> }

export function writeMetricsSnapshot(dataDir: string, metrics: Record<string, number>, now = new Date()): void {
  const file = join(dataDir, METRICS_FILE)
  const tmp = `${file}.${process.pid}.tmp`
  const snapshot: MetricsSnapshot = { written_at: now.toISOString(), pid: process.pid, metrics }
  writeFileSync(tmp, JSON.stringify(snapshot, null, 2) + '\n', { mode: 0o600 })
  renameSync(tmp, file)
}

/** Writes a snapshot now and every `everyMs`; the returned function stops and writes a last one. */
export function startMetricsSnapshots(dataDir: string, metrics: () => Record<string, number>, onError: (err: unknown) => void, everyMs = SNAPSHOT_EVERY_MS): () => void {
  const write = () => { try { writeMetricsSnapshot(dataDir, metrics()) } catch (err) { onError(err) } }
  write()
  const timer = setInterval(write, everyMs)
  timer.unref()
  return () => { clearInterval(timer); write() }
}

export function readMetricsSnapshot(dataDir: string): MetricsSnapshot | undefined {
  let text: string
  try {
    text = readFileSync(join(dataDir, METRICS_FILE), 'utf8')
  } catch {
    return undefined
  }
  return JSON.parse(text) as MetricsSnapshot
}
