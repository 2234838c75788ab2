// Request rate of an authenticated GET /v2/user on loopback, with autocannon (in this
// process) against the platform (a child process): Basic (cached verification) and Bearer.
// Usage: npm run bench:http-user   (BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_RUNS)
import autocannon from 'autocannon'
import { basicHeader, emit, median, progress, startServer } from './lib.ts'

const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10)
const runs = Number(process.env.BENCH_RUNS ?? 3)

const server = await startServer()
try {
  const tokenRes = await fetch(`${server.url}/v2/auth/token`, { method: 'POST', headers: { authorization: basicHeader } })
  const token = (await tokenRes.json()).resource.access_token as string
  for (const [auth, header] of [['basic', basicHeader], ['bearer', `Bearer ${token}`]] as const) {
    const rates: number[] = []
    const p99: number[] = []
    for (let i = 0; i < runs; i++) {
      progress(`GET /v2/user ${auth}: run ${i + 1}/${runs}, ${connections} connections, ${seconds} s`)
      const r = await autocannon({ url: `${server.url}/v2/user`, connections, duration: seconds, headers: { authorization: header } })
      if (r.non2xx > 0 || r.errors > 0) throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors`)
      rates.push(r.requests.average)
      p99.push(r.latency.p99)
    }
    emit({ bench: 'http-user', auth, connections, seconds, runs, requests_per_s_median: median(rates), latency_p99_ms_median: median(p99), requests_per_s: rates })
  }
} finally {
  await server.stop()
}
