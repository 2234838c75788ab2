// The weekly analysis run (issue 12 "Done when"): 1,000 enabled analysis instances, each on
// its own mapped heating circuit (flow and return of its own, the outdoor temperature shared),
// 15-minute data for the week; one scheduler tick runs the week for all of them. Figure: the
// wall time of that tick (claim, read through the store's down-sampling, compute, store the
// result and complete the ledger row, per instance); target < 60 s.
// Half the instances check the heating curve (function 2), half the temperature spread (4).
// Usage: npm run bench:analytics-weekly   (BENCH_RUNS, BENCH_INSTANCES, BENCH_STEP_MINUTES)
// NDJSON on stdout (one line per run, then the medians), progress on stderr.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { adminEndpoints } from '../api/registry.ts'
import { Catalog } from '../catalog/index.ts'
import { loadComponentLibrary } from '../engine/analytics/library.ts'
import { AnalyticsService } from '../engine/analytics/service.ts'
import type { Observation } from '../engine/store/port.ts'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'
import { VirtualClock } from '../core/clock/virtual-clock.ts'
import { emit, median, progress } from './lib.ts'

const runs = Number(process.env.BENCH_RUNS ?? 3)
const instances = Number(process.env.BENCH_INSTANCES ?? 1000)
const stepMinutes = Number(process.env.BENCH_STEP_MINUTES ?? 15)
const WEEK = 1_704_067_200_000_000 // Monday 2024-01-01 00:00 UTC, µs
const WEEK_US = 7 * 86_400_000_000
const STEP = stepMinutes * 60_000_000

const dir = mkdtempSync(join(tmpdir(), 'lintel-bench-analytics-'))
const library = loadComponentLibrary()
const store = await openSqliteStore({ dir: join(dir, 'ts') })
try {
  // Series ids: 1 = outdoor, then flow/return per circuit (the catalog below gives the same ids).
  progress(`writing ${instances} circuits × 2 series + outdoor, ${WEEK_US / STEP} points each`)
  const t0 = performance.now()
  const oat = (t: number) => 2 + 6 * Math.sin((2 * Math.PI * t) / 86_400_000_000)
  let batch: Observation[] = []
  const flush = async () => { if (batch.length > 0) await store.append(batch); batch = [] }
  for (let t = WEEK; t < WEEK + WEEK_US; t += STEP) batch.push({ series: 1, time: t, value: oat(t) })
  for (let i = 0; i < instances; i++) {
    const tilt = 1 + (i % 7) * 0.1
    for (let t = WEEK; t < WEEK + WEEK_US; t += STEP) {
      batch.push({ series: 2 + 2 * i, time: t, value: 58 - tilt * oat(t) }, { series: 3 + 2 * i, time: t, value: 46 - oat(t) })
    }
    if (batch.length > 100_000) await flush()
  }
  await flush()
  progress(`written in ${Math.round(performance.now() - t0)} ms`)

  const results = []
  for (let run = 1; run <= runs; run++) {
    const catalog = Catalog.open(join(dir, `catalog-${run}`), adminEndpoints)
    const { company, user } = await catalog.createCompanyWithAdmin('Bench', { email: 'a@bench.test', password: 'bench-pass-1' })
    const { project } = await catalog.projects.create(company.id, { name: 'P' }, user.id)
    const names = ['oat', ...Array.from({ length: instances }, (_, i) => [`hc${i}/flow`, `hc${i}/return`]).flat()]
    const ids = await catalog.datapoints.ensure(project.id, names)
    if (ids.get('oat') !== 1 || ids.get(`hc${instances - 1}/return`) !== 1 + 2 * instances) throw new Error('series ids differ from the written ones')
    for (let i = 0; i < instances; i++) {
      const cip = await catalog.componentsInProject.create(project.id, { component_id: 5, display_name: `HC ${i}`, tags: {} })
      await catalog.componentsInProject.setPins(cip.id, [{ pin_id: 501, datapoint: ids.get(`hc${i}/flow`)! }, { pin_id: 502, datapoint: ids.get(`hc${i}/return`)! }, { pin_id: 504, datapoint: 1 }])
      await catalog.analytics.createInstance(project.id, { componentinproject_id: cip.id, analysisfunction_id: i % 2 === 0 ? 2 : 4, name: `i${i}`, description: '', enabled: true, weeks_from: WEEK })
    }
    const service = new AnalyticsService({ catalog, store, library, clock: new VirtualClock(WEEK + WEEK_US), worker: 'bench' })
    const start = performance.now()
    const ran = await service.tick()
    const ms = performance.now() - start
    const statuses: Record<string, number> = {}
    for (const r of await catalog.analytics.latestResults(project.id)) statuses[r.status] = (statuses[r.status] ?? 0) + 1
    await catalog.close()
    if (ran !== instances) throw new Error(`ran ${ran} weeks, expected ${instances}`)
    const row = { bench: 'analytics-weekly', run, instances, step_minutes: stepMinutes, seconds: Math.round(ms) / 1000, per_instance_ms: Math.round((ms / instances) * 100) / 100, statuses }
    emit(row)
    results.push(row)
  }
  emit({ bench: 'analytics-weekly', summary: 'median', runs, instances, seconds: median(results.map((r) => r.seconds)), target_seconds: 60 })
} finally {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
}
