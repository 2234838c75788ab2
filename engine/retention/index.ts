// Retention in the background (issue 34 item 2): every `periodUs` (default a minute) the
// projects with a retention (catalog/lifecycle.ts) are swept: their series are trimmed in the
// store in small steps (TimeseriesStore.trim: SQLite removes at most `stepRows` rows per step
// on its writer thread between appends, then gives freed pages back; QuestDB detaches rows and
// drops whole partitions), paced (PACE): after a step, four times its duration is left to
// ingest, so ingest is never held for more than one step and keeps most of the writer. A sweep runs to its end before the next one is armed (no overlap);
// stop() lets the step under way finish and starts no other.
//
// Scaled mode: each worker sweeps the projects whose log partitions it owns (`owns`), so one
// project is swept by one worker. Raw rows go before `now - raw`, rollup rows of a level whose
// buckets end before `now - that level's retention` (engine/store/sqlite-rollups.ts).
import { setTimeout as delay } from 'node:timers/promises'
import type { CatalogPort } from '../../catalog/port.ts'
import type { Retention } from '../../catalog/lifecycle.ts'
import { every, MINUTE_US, SECOND_US, systemClock, type Clock } from '../../core/clock/index.ts'
import type { TimeseriesStore, TrimBounds } from '../store/port.ts'
import type { Running } from '../running.ts'

const MIN = 60_000_000
/** The rollup level (µs) each retention part applies to. */
const LEVELS: ReadonlyArray<[keyof Retention, number]> = [['rollup_15m', 15 * MIN], ['rollup_1h', 60 * MIN], ['rollup_1d', 1440 * MIN]]
/**
 * Time left to ingest after each step, as a multiple of the step's duration: the sweep takes at
 * most 1 / (1 + PACE) of the writer's time. Back to back (a turn of the event loop between
 * steps) ingest ran at a median 0.72 of its rate alone (min 0.42; bench:retention, 3M rows,
 * 6 pairs, load 8-12, 2026-11-28).
 */
export const PACE = 4
/** Series per trim call (one SQL statement per series per step on SQLite). */
const SERIES_PER_CALL = 1000

export interface RetentionDeps {
  catalog: Pick<CatalogPort, 'lifecycle' | 'datapoints'>
  store: Pick<TimeseriesStore, 'trim'>
  /** Whether this process sweeps the project (scaled: the worker owning its partition). */
  owns?: (projectId: number) => boolean
  log: { info: (o: object, msg: string) => void; warn: (o: object, msg: string) => void }
  clock?: Clock
  /** Between sweeps (default one minute). */
  periodUs?: number
  /** Rows removed per store step at most (default 20,000: ~10-20 ms of the SQLite writer). */
  stepRows?: number
  /** Told of every sweep that removed something (the operator's metrics). */
  observe?: (rows: number, seconds: number) => void
}

export interface SweepResult { projects: number; rows: number; seconds: number }

/** The store's bounds of a project's retention at `now` (µs); undefined when it keeps everything. */
export function boundsAt(r: Retention, now: number): TrimBounds | undefined {
  const rollups = LEVELS.filter(([part]) => r[part] !== null).map(([part, level]) => ({ level, before: now - r[part]! * SECOND_US }))
  const b: TrimBounds = { ...(r.raw !== null ? { raw: now - r.raw * SECOND_US } : {}), ...(rollups.length > 0 ? { rollups } : {}) }
  return b.raw === undefined && b.rollups === undefined ? undefined : b
}

/**
 * Trims `series` to `bounds` in steps of at most `stepRows` rows, with a turn of the event loop
 * between steps; the rows removed. What a sweep does per project (and what bench:retention runs).
 */
export async function trimSeries(store: Pick<TimeseriesStore, 'trim'>, series: readonly number[], bounds: TrimBounds, stepRows: number, stopped: () => boolean = () => false, pace = PACE): Promise<number> {
  let removed = 0
  if (!store.trim) return 0
  for (let i = 0; i < series.length && !stopped(); i += SERIES_PER_CALL) {
    const part = series.slice(i, i + SERIES_PER_CALL)
    for (;;) {
      const began = performance.now()
      const r = await store.trim(part, bounds, stepRows)
      removed += r.rows
      if (!r.more || stopped()) break
      // The writer is shared with ingest: after a step of d ms, d * pace ms for the appends.
      await delay((performance.now() - began) * pace)
    }
  }
  return removed
}

export async function startRetention(d: RetentionDeps): Promise<Running & { sweep(): Promise<SweepResult> }> {
  const clock = d.clock ?? systemClock
  let stopped = false
  let running: Promise<SweepResult> | undefined

  const sweepOnce = async (): Promise<SweepResult> => {
    const began = performance.now()
    let rows = 0
    let projects = 0
    if (!d.store.trim) return { projects, rows, seconds: 0 }
    for (const { project_id: pid, retention } of await d.catalog.lifecycle.retentions()) {
      if (stopped) break
      if (d.owns && !d.owns(pid)) continue
      const bounds = boundsAt(retention, clock.now())
      if (!bounds) continue
      projects++
      const removed = await trimSeries(d.store, await d.catalog.datapoints.idsOfProject(pid), bounds, d.stepRows ?? 20_000, () => stopped)
      if (removed > 0) d.log.info({ project_id: pid, rows: removed, raw_before: bounds.raw }, 'retention: rows removed')
      rows += removed
    }
    const seconds = (performance.now() - began) / 1000
    if (rows > 0) d.observe?.(rows, seconds)
    return { projects, rows, seconds }
  }

  /** One sweep at a time: a call during a sweep waits for it and runs the next. */
  const sweep = async (): Promise<SweepResult> => {
    while (running) await running.catch(() => undefined)
    running = sweepOnce()
    try { return await running } finally { running = undefined }
  }

  const cancel = every(clock, () => {
    if (running || stopped) return // the one under way is not doubled
    sweep().catch((err) => d.log.warn({ err }, 'retention: sweep failed; the next one tries again'))
  }, d.periodUs ?? MINUTE_US)

  return {
    sweep,
    stop: async () => {
      stopped = true
      cancel()
      await running?.catch(() => undefined)
    },
  }
}
