// CSV import through HTTP (issue 3, benchmark b): rows/s and the server's peak memory for a
// file of 10 million rows (1,000 series interleaved, 1-minute steps), uploaded as multipart
// with on_error=continue (one streaming pass) and, once, with on_error=abort (spool + check
// + store). The file is written once to a temporary directory.
// Usage: npm run bench:csv-import   (BENCH_ROWS, BENCH_RUNS, BENCH_MODES=continue,abort)
import { createReadStream, createWriteStream, statSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { request } from 'undici'
import { basicHeader, createProject, emit, median, peakRssMb, progress, startServer } from './lib.ts'

const rows = Number(process.env.BENCH_ROWS ?? 10_000_000)
const runs = Number(process.env.BENCH_RUNS ?? 3)
const modes = (process.env.BENCH_MODES ?? 'continue').split(',')
const SERIES = 1000
const T0 = Date.parse('2024-01-01T00:00:00Z') / 1000

const dir = await mkdtemp(join(tmpdir(), 'lintel-csv-bench-'))
const file = join(dir, 'rows.csv')
progress(`writing ${rows} rows to ${file}`)
{
  const out = createWriteStream(file)
  let buf = ''
  for (let i = 0; i < rows; i++) {
    const s = i % SERIES
    const t = new Date((T0 + Math.floor(i / SERIES) * 60) * 1000).toISOString()
    buf += `sensor-${s},${(i % 1000) / 10},${t}\n`
    if (buf.length > 1 << 20) { if (!out.write(buf)) await once(out, 'drain'); buf = '' }
  }
  out.end(buf)
  await once(out, 'close')
}
const bytes = statSync(file).size
const BOUNDARY = 'lintel-bench-boundary'

async function* multipartBody(): AsyncGenerator<Buffer> {
  yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="import_file"; filename="rows.csv"\r\nContent-Type: text/csv\r\n\r\n`)
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) yield chunk as Buffer
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`)
}

try {
  for (const mode of modes) {
    const rates: number[] = []
    const rss: number[] = []
    for (let run = 1; run <= runs; run++) {
      const server = await startServer()
      try {
        const pid = await createProject(server, 'import')
        progress(`${mode} run ${run}/${runs}: uploading ${(bytes / 1e6).toFixed(0)} MB`)
        const started = process.hrtime.bigint()
        const res = await request(`${server.url}/v2/project/${pid}/importTimeseries?format=csv&on_error=${mode}`, {
          method: 'POST', body: Readable.from(multipartBody()), headersTimeout: 0, bodyTimeout: 0,
          headers: { authorization: basicHeader, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        })
        const answer = await res.body.json() as { resource?: { total_lines_success: number } }
        const seconds = Number(process.hrtime.bigint() - started) / 1e9
        if (res.statusCode !== 200 || answer.resource?.total_lines_success !== rows) throw new Error(`${res.statusCode} ${JSON.stringify(answer).slice(0, 300)}`)
        const peak = await peakRssMb(server.child.pid!)
        rates.push(rows / seconds)
        rss.push(peak)
        emit({ bench: 'csv-import', mode, run, rows, mbytes: Math.round(bytes / 1e6), seconds: +seconds.toFixed(2), rows_per_s: Math.round(rows / seconds), server_peak_rss_mb: peak })
      } finally {
        await server.stop()
      }
    }
    emit({ bench: 'csv-import', summary: true, mode, rows, runs, rows_per_s_median: Math.round(median(rates)), server_peak_rss_mb_median: median(rss) })
  }
} finally {
  await rm(dir, { recursive: true, force: true })
}
