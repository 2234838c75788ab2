// Restart in the middle of a raised alert (issue 13 item 3), threshold and throughput alerts:
// catalog and store on disk, the runtime closed (gracefully, or dropped as in a crash) and
// opened again on the same files.
import t, { type Test } from 'tap'
import { join } from 'node:path'
import { parseThresholds, parseThroughput } from '../../../engine/alerts/config.ts'
import { openSqliteStore } from '../../../engine/store/sqlite-store.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { MICROS_PER_MS as MS, nowMs } from '../../../core/clock/clock.ts'
import { addAlert, alertSetup, seedProject } from './setup.ts'

const S = 1_000_000
const T0 = 1_700_000_000 * S
const config = { thresholds: parseThresholds({ warn: { upper: 25, upper_reset: 23 }, crit: { upper: 30 } }) }
const kinds = async (s: Awaited<ReturnType<typeof alertSetup>>, id: number) =>
  (await s.catalog.alerts.events(id, { limit: 100 })).reverse().map((e) => `${e.kind} ${e.level} v=${e.value} @${(e.time - T0) / S}`)

async function firstRun(t: Test) {
  const dir = t.testdir()
  const paths = { dir: join(dir, 'ts'), catalogDir: join(dir, 'catalog') }
  const s = await alertSetup(t, paths)
  const { projectId, series } = await seedProject(s.catalog)
  const a = await addAlert(s.catalog, projectId, series, 'threshold', config)
  await s.alerts.start(a)
  await s.store.append([{ series, time: T0 + 1 * S, value: 20 }, { series, time: T0 + 2 * S, value: 27 }, { series, time: T0 + 3 * S, value: 26 }])
  await s.alerts.settled()
  t.same(await kinds(s, a.id), ['raise warn v=27 @2'])
  return { s, a, series, paths }
}

t.test('graceful restart while raised: no second raise, the reset comes when due', async (t) => {
  const { s, a, series, paths } = await firstRun(t)
  await s.close()
  const again = await alertSetup(t, paths)
  await again.alerts.resume()
  t.ok(again.alerts.isRunning(a.id))
  await again.store.append([{ series, time: T0 + 4 * S, value: 28 }])
  await again.alerts.settled()
  t.same(await kinds(again, a.id), ['raise warn v=27 @2'], 'still raised: nothing new')
  await again.store.append([{ series, time: T0 + 5 * S, value: 22 }])
  await again.alerts.settled()
  t.same(await kinds(again, a.id), ['raise warn v=27 @2', 'reset warn v=22 @5'])
})

t.test('a reset stored while the runtime was down is found on start (no missed reset)', async (t) => {
  const { s, a, series, paths } = await firstRun(t)
  await s.close()
  const store = await openSqliteStore({ dir: paths.dir }) // e.g. written by another process, or before a crash
  await store.append([{ series, time: T0 + 10 * S, value: 24 }, { series, time: T0 + 11 * S, value: 10 }])
  await store.close()
  const again = await alertSetup(t, paths)
  await again.alerts.resume()
  await again.alerts.settled()
  t.same(await kinds(again, a.id), ['raise warn v=27 @2', 'reset warn v=10 @11'])
})

t.test('crash after the raise (no graceful checkpoint): replay from the checkpoint raises nothing twice', async (t) => {
  const clock = new VirtualClock()
  const dir = t.testdir()
  const paths = { dir: join(dir, 'ts'), catalogDir: join(dir, 'catalog') }
  const s = await alertSetup(t, { ...paths, clock })
  const { projectId, series } = await seedProject(s.catalog)
  const a = await addAlert(s.catalog, projectId, series, 'threshold', config)
  await s.alerts.start(a)
  await s.store.append([{ series, time: T0 + 1 * S, value: 31 }, { series, time: T0 + 2 * S, value: 29 }, { series, time: T0 + 3 * S, value: 35 }])
  await s.alerts.settled()
  t.same(await kinds(s, a.id), ['raise crit v=31 @1', 'raise warn v=29 @2', 'raise crit v=35 @3'])
  await s.store.append([{ series, time: T0 + 4 * S, value: 32 }])
  // The crash: the files stay as they are; the runtime never writes its periodic checkpoint.
  await s.crash()
  const again = await alertSetup(t, { ...paths, clock: new VirtualClock() })
  await again.alerts.resume()
  await again.store.append([{ series, time: T0 + 5 * S, value: 31 }])
  await again.alerts.settled()
  t.same(await kinds(again, a.id), ['raise crit v=31 @1', 'raise warn v=29 @2', 'raise crit v=35 @3'], 'no duplicate raise after replaying 4 and evaluating 5')
  await again.store.append([{ series, time: T0 + 6 * S, value: 1 }])
  await again.alerts.settled()
  t.same((await kinds(again, a.id)).at(-1), 'reset crit v=1 @6')
})

t.test('the periodic checkpoint moves the replay start forward', async (t) => {
  const { s, a, series } = await firstRun(t)
  await s.store.append([{ series, time: T0 + 7 * S, value: 26 }])
  await s.alerts.checkpoint()
  t.equal(JSON.parse((await s.catalog.alerts.state(a.id))!).last, T0 + 7 * S)
})

t.test('throughput alert restarted while raised: no second raise on its timers; data stored meanwhile resets it on start', async (t) => {
  const dir = t.testdir()
  const paths = { dir: join(dir, 'ts'), catalogDir: join(dir, 'catalog') }
  const clock = new VirtualClock()
  const s = await alertSetup(t, { ...paths, clock })
  const { projectId, series } = await seedProject(s.catalog)
  const a = await addAlert(s.catalog, projectId, series, 'throughput', { throughput: parseThroughput({ window_seconds: 300 }) })
  await s.alerts.start(a)
  clock.advance(300_000 * MS)
  await s.alerts.settled()
  const events = async (x: typeof s) => (await x.catalog.alerts.events(a.id, { limit: 100 })).reverse().map((e) => `${e.kind} ${e.level} v=${e.value}`)
  t.same(await events(s), ['raise warn v=0'])
  await s.crash() // nothing flushed: the raised level is in the checkpoint stored with the event

  // Restarted later, still silent: raised, not raised again, however long the silence lasts.
  const later = new VirtualClock((nowMs(clock) + 60_000) * MS)
  const again = await alertSetup(t, { ...paths, clock: later })
  await again.alerts.resume()
  t.ok(again.alerts.isRunning(a.id))
  later.advance(3_600_000)
  await again.alerts.settled()
  t.same(await events(again), ['raise warn v=0'], 'no duplicate raise')
  await again.close()

  // Down again; data arrives meanwhile (stored by another process): found on start, reset at once.
  const store = await openSqliteStore({ dir: paths.dir })
  const resumedAt = nowMs(later) + 60_000
  await store.append([{ series, time: (resumedAt - 10_000) * 1000, value: 5 }])
  await store.close()
  const third = await alertSetup(t, { ...paths, clock: new VirtualClock(resumedAt * MS) })
  await third.alerts.resume()
  await third.alerts.settled()
  t.same(await events(third), ['raise warn v=0', 'reset warn v=1'], 'the missed reset is recorded')
  t.same(JSON.parse((await third.catalog.alerts.state(a.id))!).level, null)
})
