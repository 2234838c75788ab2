// npm run bench:haystack-his (issue 35, "Done when"): hisRead of a year of 1-minute data
// (525,600 rows) from a server child process (the embedded store), in Zinc and in JSON, beside
// the same raw read through Lintel's own GET /v2/datapoint/timeseries, alternated in one run:
// (/v2: `start` with `max=525600`, the raw form: with both bounds /v2 samples automatically.)
//   - time to the last byte of the answer (this process's undici client), bytes, rows checked;
//   - the server's peak resident memory during the read above its resident memory before it
//     (VmRSS of the child sampled every 5 ms): the streamed answers should not hold the year.
// Medians of RUNS rounds (default 5; each round reads A, B, C in a rotated order). One JSON
// object per line; every line carries the 1-minute load average (the machine is shared).
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { Pool } from 'undici'
import { basicHeader, createProject, emit as emitLine, median, progress, rssKb, startServer, writeMinuteSeries } from './lib.ts'

const emit = (o: object) => emitLine({ ...o, load1: Math.round(loadavg()[0] * 10) / 10 })
const RUNS = Number(process.env.RUNS ?? 5)
const Y0 = Date.UTC(2023, 0, 1)
const MINUTES = 525_600
const value = (i: number) => Math.round((20 + 5 * Math.sin(i / 720) + (i % 17) / 10) * 100) / 100
const ms2 = (x: number) => Math.round(x * 100) / 100

const server = await startServer()
const pool = new Pool(server.url, { connections: 2 })
try {
  const pid = await createProject(server, 'haystack-his')
  progress('writing a year of 1-minute data over HTTP ...')
  await writeMinuteSeries(pool, pid, 'year', Y0, MINUTES, value)
  // The point's id, as a Haystack client finds it: read by filter.
  const found = await pool.request({ method: 'GET', path: `/haystack/${pid}/read?filter=${encodeURIComponent('dataPointID=="year"')}`, headers: { authorization: basicHeader, accept: 'application/json' } })
  const id = (JSON.parse(await found.body.text()) as { rows: { id: { val: string } }[] }).rows[0].id.val
  const range = '"2023-01-01,2023-12-31"'
  const cases: Record<string, { path: string; method: 'GET' | 'POST'; headers: Record<string, string>; body?: string; rows: (text: string) => number }> = {
    hisRead_zinc: {
      path: `/haystack/${pid}/hisRead`, method: 'POST', body: `ver:"3.0"\nid,range\n@${id},${range}\n`,
      headers: { authorization: basicHeader, 'content-type': 'text/zinc', accept: 'text/zinc' },
      rows: (t) => t.split('\n').filter((l) => l !== '').length - 2,
    },
    hisRead_json: {
      path: `/haystack/${pid}/hisRead`, method: 'POST', body: `ver:"3.0"\nid,range\n@${id},${range}\n`,
      headers: { authorization: basicHeader, 'content-type': 'text/zinc', accept: 'application/json' },
      rows: (t) => (JSON.parse(t) as { rows: unknown[] }).rows.length,
    },
    v2_raw_json: {
      path: `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=year&start=2023-01-01T00:00:00Z&max=525600`, method: 'GET',
      headers: { authorization: basicHeader },
      rows: (t) => (JSON.parse(t) as { data: unknown[] }).data.length,
    },
  }
  const names = Object.keys(cases)
  const results = new Map<string, { ms: number[]; mb: number[]; bytes: number }>(names.map((n) => [n, { ms: [], mb: [], bytes: 0 }]))
  const pidOf = server.child.pid!
  for (let run = 0; run < RUNS + 1; run++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + run) % names.length]
      const c = cases[name]
      if (globalThis.gc) globalThis.gc()
      const before = rssKb(pidOf)
      let peak = before
      const sampler = setInterval(() => { peak = Math.max(peak, rssKb(pidOf)) }, 5)
      const t0 = performance.now()
      const res = await pool.request({ path: c.path, method: c.method, headers: c.headers, body: c.body })
      const text = await res.body.text()
      const ms = performance.now() - t0
      clearInterval(sampler)
      peak = Math.max(peak, rssKb(pidOf))
      if (res.statusCode !== 200) throw new Error(`${name}: ${res.statusCode} ${text.slice(0, 300)}`)
      const rows = c.rows(text)
      if (rows !== MINUTES) throw new Error(`${name}: ${rows} rows, expected ${MINUTES}`)
      if (run === 0) continue // the first round warms the server up
      const r = results.get(name)!
      r.ms.push(ms)
      r.mb.push((peak - before) / 1024)
      r.bytes = Buffer.byteLength(text)
      progress(`${name}: ${ms2(ms)} ms, +${Math.round((peak - before) / 1024)} MiB`)
    }
  }
  for (const [name, r] of results) {
    emit({ bench: 'haystack-his', case: name, rows: MINUTES, runs: RUNS, median_ms: ms2(median(r.ms)), min_ms: ms2(Math.min(...r.ms)), max_ms: ms2(Math.max(...r.ms)), server_rss_growth_mb_median: ms2(median(r.mb)), server_rss_growth_mb_max: ms2(Math.max(...r.mb)), bytes: r.bytes })
  }
} finally {
  await pool.close()
  await server.stop()
}
