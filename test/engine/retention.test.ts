// The retention runtime (engine/retention/; issue 34 item 2): every period it sweeps the
// projects with a retention that this process owns, raw rows and rollup levels each by their
// own bound, and reports what it removed; projects without one keep everything.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { KEEP_EVERYTHING } from '../../catalog/lifecycle.ts'
import { DAY_US, MINUTE_US, VirtualClock } from '../../core/clock/index.ts'
import { boundsAt, startRetention } from '../../engine/retention/index.ts'
import type { Observation } from '../../engine/store/port.ts'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { waitFor } from '../helpers/wait.ts'

const NOW = Date.UTC(2024, 2, 10) * 1000

t.test('bounds: each part by its own retention; keeping everything gives none', async (t) => {
  t.equal(boundsAt(KEEP_EVERYTHING, NOW), undefined)
  t.same(boundsAt({ raw: 86_400, rollup_15m: 7 * 86_400, rollup_1h: null, rollup_1d: null }, NOW), { raw: NOW - DAY_US, rollups: [{ level: 15 * MINUTE_US, before: NOW - 7 * DAY_US }] })
  t.same(boundsAt({ raw: null, rollup_15m: null, rollup_1h: null, rollup_1d: 60 }, NOW), { rollups: [{ level: DAY_US, before: NOW - MINUTE_US }] })
})

t.test('a sweep a period removes what is older than the retention of owned projects only', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lintel-retention-rt-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const catalog = Catalog.open(':memory:', adminEndpoints)
  const store = await openSqliteStore({ dir })
  t.teardown(async () => { await store.close(); await catalog.close() })
  const { company, user } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'admin-pass-1' })
  const ids: number[] = []
  for (const name of ['kept', 'swept', 'elsewhere']) {
    const { project } = await catalog.projects.create(company.id, { name }, user.id)
    ids.push((await catalog.datapoints.ensure(project.id, ['x'])).get('x')!)
    if (name !== 'kept') await catalog.lifecycle.setRetention(project.id, { ...KEEP_EVERYTHING, raw: 2 * 86_400 })
  }
  const [kept, swept, elsewhere] = ids
  const batch: Observation[] = []
  for (let h = 0; h < 24 * 5; h++) for (const s of ids) batch.push({ series: s, time: NOW - 5 * DAY_US + h * 3_600_000_000, value: h })
  await store.append(batch)
  const clock = new VirtualClock(NOW)
  const seen: Array<[number, number]> = []
  const logs: string[] = []
  const projectOf = new Map([[swept, 2], [elsewhere, 3]])
  const running = await startRetention({
    catalog, store, clock, owns: (pid) => pid !== projectOf.get(elsewhere), stepRows: 10,
    log: { info: (_o, m) => logs.push(m), warn: (_o, m) => logs.push(m) }, observe: (rows, s) => seen.push([rows, s]),
  })
  t.teardown(() => running.stop())
  t.equal(await store.count(swept), 120)
  await clock.settle(MINUTE_US) // the first sweep, after one period
  await waitFor(() => seen.length === 1, { what: 'the first sweep to report' })
  t.equal(seen[0][0], 73, 'the hourly rows before now - 2 days (the sweep ran a minute after NOW), removed in steps of 10')
  t.equal(await store.count(swept), 47, 'the last two days stay')
  t.equal(await store.count(swept, undefined, NOW + MINUTE_US - 2 * DAY_US), 0)
  t.equal(await store.count(kept), 120, 'a project without retention keeps everything')
  t.equal(await store.count(elsewhere), 120, 'a project owned by another worker is not swept here')
  t.match(logs, ['retention: rows removed'])
  t.match(await running.sweep(), { projects: 1, rows: 0 }, 'the next sweep finds nothing')
  t.equal(seen.length, 1, 'only sweeps that removed rows are reported')
})
