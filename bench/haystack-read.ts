// Haystack `read` of 100,000 points by a filter (issue 35 "Done when"), in Zinc and in JSON,
// against the same datapoints through Lintel's own /v2 listing (GET /v2/project/{id}, pages of
// 2,000, every page fetched), side by side in one run: the variants alternate, BENCH_RUNS
// rounds. The server is the embedded one in a child process (npm start's entry point); its
// datapoints are created by JSON ingest. Per variant: wall time of the whole answer (all pages
// for /v2), bytes received, the server's resident memory before and at most during the answer
// (VmRSS sampled every 10 ms) and its CPU time.
// Filters: `point and kind == "Number"` (every point) and `point and dataPointID < "dp-025000"`
// (a quarter); /v2 has no filter: it lists all.
// Usage: npm run bench:haystack-read   (BENCH_POINTS, BENCH_RUNS)
import { basicHeader, createProject, emit, median, processCpuMs, progress, rssKb, startServer } from './lib.ts'

const points = Number(process.env.BENCH_POINTS ?? 100_000)
const runs = Number(process.env.BENCH_RUNS ?? 3)
const name = (i: number) => `dp-${String(i).padStart(6, '0')}`

interface Figure { ms: number; bytes: number; items: number; rssBeforeMb: number; rssPeakMb: number; cpuMs: number }

async function main() {
  const server = await startServer()
  const pid = server.child.pid!
  try {
    const project = await createProject(server, 'Haystack read')
    progress(`creating ${points} datapoints`)
    for (let i = 0; i < points; i += 10_000) {
      const body: Record<string, { time: string; value: number }[]> = {}
      for (let k = i; k < Math.min(points, i + 10_000); k++) body[name(k)] = [{ time: '2024-01-01T00:00:00Z', value: k }]
      const res = await fetch(`${server.url}/v2/project/${project}/timeseries`, { method: 'POST', headers: { authorization: basicHeader, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      if (res.status !== 200) throw new Error(`ingest: ${res.status} ${await res.text()}`)
    }
    const measure = async (run: () => Promise<{ bytes: number; items: number }>): Promise<Figure> => {
      const before = rssKb(pid)
      let peak = before
      const timer = setInterval(() => { peak = Math.max(peak, rssKb(pid)) }, 10)
      const cpu0 = processCpuMs(pid)
      const t0 = performance.now()
      const r = await run().finally(() => clearInterval(timer))
      const ms = performance.now() - t0
      peak = Math.max(peak, rssKb(pid))
      return { ms: Math.round(ms), ...r, rssBeforeMb: Math.round(before / 1024), rssPeakMb: Math.round(peak / 1024), cpuMs: processCpuMs(pid) - cpu0 }
    }
    const haystack = (filter: string, accept: string) => measure(async () => {
      const url = `${server.url}/haystack/${project}/read?filter=${encodeURIComponent(JSON.stringify(filter))}`
      const res = await fetch(url, { headers: { authorization: basicHeader, accept } })
      const text = await res.text()
      const error = text.startsWith('ver:"3.0" err') || text.startsWith('{"_kind":"grid","meta":{"ver":"3.0","err"')
      if (res.status !== 200 || error) throw new Error(`haystack read: ${res.status} ${text.slice(0, 300)}`)
      const items = accept === 'text/zinc' ? text.split('\n').length - 3 : (JSON.parse(text) as { rows: unknown[] }).rows.length
      return { bytes: Buffer.byteLength(text), items }
    })
    const v2 = () => measure(async () => {
      let bytes = 0
      let items = 0
      for (let page = 1; ; page++) {
        const res = await fetch(`${server.url}/v2/project/${project}?per_page=2000&page=${page}`, { headers: { authorization: basicHeader } })
        const text = await res.text()
        if (res.status !== 200) throw new Error(`/v2 listing: ${res.status} ${text.slice(0, 300)}`)
        bytes += Buffer.byteLength(text)
        const body = JSON.parse(text) as { datapoints: unknown[]; meta: { total_pages: number } }
        items += body.datapoints.length
        if (page >= body.meta.total_pages) break
      }
      return { bytes, items }
    })
    const ALL = 'point and kind == "Number"'
    const QUARTER = 'point and dataPointID < "dp-025000"'
    const variants: [string, () => Promise<Figure>][] = [
      ['haystack zinc, all', () => haystack(ALL, 'text/zinc')],
      ['haystack json, all', () => haystack(ALL, 'application/json')],
      ['v2 listing, all (50 pages)', v2],
      ['haystack zinc, quarter', () => haystack(QUARTER, 'text/zinc')],
      ['haystack json, quarter', () => haystack(QUARTER, 'application/json')],
    ]
    const results = new Map<string, Figure[]>(variants.map(([n]) => [n, []]))
    for (let r = 0; r < runs; r++) {
      for (const [n, run] of variants) {
        const f = await run()
        results.get(n)!.push(f)
        progress(`run ${r + 1} ${n}: ${f.ms} ms, ${f.items} items, ${(f.bytes / 1e6).toFixed(1)} MB, rss ${f.rssBeforeMb} → peak ${f.rssPeakMb} MiB`)
      }
    }
    for (const [n, fs] of results) {
      emit({ bench: 'haystack-read', variant: n, points, runs, items: fs[0].items, bytes: fs[0].bytes, ms_median: median(fs.map((f) => f.ms)), ms_all: fs.map((f) => f.ms),
        cpu_ms_median: median(fs.map((f) => f.cpuMs)), rss_before_mb: median(fs.map((f) => f.rssBeforeMb)), rss_peak_mb_max: Math.max(...fs.map((f) => f.rssPeakMb)) })
    }
  } finally {
    await server.stop()
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1 })
