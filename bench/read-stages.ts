// npm run bench:read-stages (issue 14, the read targets): where the time of the two big reads
// goes, stage by stage, without HTTP. A year of 1-minute data in one series (525,600 points,
// written through the store), then medians of RUNS runs of:
//   - the SQLite part in this thread (SqliteReader, as a reader worker runs it);
//   - the JSON encoding of the answer (engine/answer-json.ts, as the worker runs it);
//   - a whole store call through the reader pool (dispatch, read, encode, transfer back),
//     with 1 reader (no split) and 2 (a big sample split over both).
// CPU time (process.cpuUsage, this thread's stages only) is printed beside wall time: on the
// shared 2-core machine wall time mostly measures the other jobs, CPU time what a quiet
// machine would take (roughly: caches are shared too). Load average on every line.
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { encodeAnswer } from '../engine/answer-json.ts'
import { SqliteReader } from '../engine/store/sqlite-reader.ts'
import { DB_FILE, openReaderDatabase } from '../engine/store/sqlite-schema.ts'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'
import { emit as emitLine, median, progress } from './lib.ts'

const emit = (o: object) => emitLine({ bench: 'read-stages', ...o, load1: Math.round(loadavg()[0] * 10) / 10 })
const RUNS = Number(process.env.RUNS ?? 21)
const MINUTE = 60_000_000
const Y0 = Date.UTC(2023, 0, 1) * 1000
const Y1 = Y0 + 525_600 * MINUTE
const value = (i: number) => Math.round((20 + 5 * Math.sin(i / 720) + (i % 17) / 10) * 100) / 100
const round = (x: number) => Math.round(x * 100) / 100

function measure(name: string, f: () => unknown): void {
  f()
  const wall: number[] = []
  const cpu: number[] = []
  for (let r = 0; r < RUNS; r++) {
    const c = process.cpuUsage()
    const t = performance.now()
    f()
    wall.push(performance.now() - t)
    const d = process.cpuUsage(c)
    cpu.push((d.user + d.system) / 1000)
  }
  emit({ stage: name, cpu_ms: round(median(cpu)), wall_ms: round(median(wall)), wall_min_ms: round(Math.min(...wall)) })
}

async function measureAsync(name: string, f: () => Promise<unknown>): Promise<void> {
  await f()
  const wall: number[] = []
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now()
    await f()
    wall.push(performance.now() - t)
  }
  emit({ stage: name, wall_ms: round(median(wall)), wall_min_ms: round(Math.min(...wall)) })
}

const dir = mkdtempSync(join(tmpdir(), 'lintel-read-stages-'))
try {
  progress('writing a year of 1-minute data ...')
  const writer = await openSqliteStore({ dir, readers: 1 })
  for (let from = 0; from < 525_600; from += 50_000) {
    const batch = []
    for (let i = from; i < Math.min(525_600, from + 50_000); i++) batch.push({ series: 1, time: Y0 + i * MINUTE, value: value(i) })
    await writer.append(batch)
  }
  await writer.close()

  const year = { start: Y0, end: Y1, interval: 15 * MINUTE }
  const last = { limit: 1000, from: 'last' as const }
  const head = '{"dataPointID":"year","tags":[],"data":['
  const db = openReaderDatabase(join(dir, DB_FILE))
  const reader = new SqliteReader(db)
  const means = reader.sample(1, year)
  const points = reader.read(1, last)
  measure('SQLite: 15-minute means of the year (35,040 rollup rows), SqliteReader.sample', () => reader.sample(1, year))
  measure('encode: 15-minute means of the year, encodeAnswer (1.95 MB)', () => encodeAnswer(head, means, (p) => p.mean, 'mean'))
  measure('SQLite: last 1,000 raw, SqliteReader.read', () => reader.read(1, last))
  measure('encode: last 1,000 raw, encodeAnswer (46 kB)', () => encodeAnswer(head, points, (p) => p.value, 'value'))
  measure('main thread alone: last 1,000 raw read + encode (what skipping the pool would hold the event loop for)', () => encodeAnswer(head, reader.read(1, last), (p) => p.value, 'value'))
  db.close()

  for (const readers of [1, 2]) {
    const store = await openSqliteStore({ dir, readers })
    await measureAsync(`pool, ${readers} reader(s): 15-minute means of the year, sampleAnswer${readers > 1 ? ' (split over both)' : ''}`, () => store.sampleAnswer!(1, year, { head, field: 'mean' }))
    await measureAsync(`pool, ${readers} reader(s): last 1,000 raw, readAnswer`, () => store.readAnswer!(1, last, { head, field: 'value' }))
    await store.close()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
