// Shared set-up of the analysis tests: a real SQLite store in a temp dir and builders of
// synthetic series (times in µs).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import type { Observation, TimeseriesStore } from '../../../engine/store/port.ts'
import { openSqliteStore } from '../../../engine/store/sqlite-store.ts'

export const MIN = 60_000_000
export const HOUR = 60 * MIN
export const DAY = 24 * HOUR
/** Monday 2024-01-01 00:00 UTC. */
export const MON = Date.UTC(2024, 0, 1) * 1000

export async function tempStore(t: Test): Promise<TimeseriesStore> {
  const dir = mkdtempSync(join(tmpdir(), 'lintel-analytics-'))
  const store = await openSqliteStore({ dir })
  t.teardown(async () => { await store.close(); rmSync(dir, { recursive: true, force: true }) })
  return store
}

/** Writes value(t) every `step` µs in [start, end) into `series`. */
export async function writeSeries(store: TimeseriesStore, series: number, start: number, end: number, step: number, value: (t: number) => number | undefined): Promise<void> {
  let batch: Observation[] = []
  for (let t = start; t < end; t += step) {
    const v = value(t)
    if (v !== undefined) batch.push({ series, time: t, value: v })
    if (batch.length >= 50_000) { await store.append(batch); batch = [] }
  }
  if (batch.length) await store.append(batch)
}

/** Hour of the UTC day and the day index since `MON`. */
export const hourOf = (t: number) => ((t - MON) % DAY) / HOUR
export const dayOf = (t: number) => Math.floor((t - MON) / DAY)

export const pins = (o: Record<string, number>) => new Map(Object.entries(o))
