// Benchmark of the streaming CSV parser (protocol/csv/parse.ts), preferred dialect.
//   npm run bench:csv-parse -- [--lines 10000000] [--runs 3] [--file]
// Input: 10 million lines `identifier,value,timestamp` (ISO with Z), fed as 64 KiB Buffer
// chunks. By default the chunks are cycled from a pre-generated in-memory pool (~16 MiB,
// so generation costs nothing during the run); with --file a temporary file is written
// once and streamed with fs.createReadStream (includes read I/O), then deleted.
// Output: one NDJSON line per run and a summary line (medians; peak RSS is the process
// maximum). Progress on stderr.

import { createReadStream, createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { once } from 'node:events'
import { parseCsvStream } from '../protocol/csv/parse.ts'
import { formatTimestamp } from '../core/timestamp.ts'

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf('--' + name)
  return i >= 0 ? Number(process.argv[i + 1]) : dflt
}
const LINES = arg('lines', 10_000_000)
const RUNS = arg('runs', 3)
const FROM_FILE = process.argv.includes('--file')
const CHUNK = 64 * 1024
const POOL_CHUNKS = 256

const IDS: string[] = []
for (let b = 1; b <= 5; b++) for (let r = 1; r <= 20; r++) IDS.push(`building-${b}/floor ${r % 4}/room ${r}/temperature`)

/** A chunk of complete lines starting at line index `first`; returns text and line count. */
function makeChunk(first: number): { buf: Buffer; lines: number } {
  const parts: string[] = []
  let size = 0
  let n = 0
  const t0 = Date.UTC(2024, 0, 1) * 1000
  for (;;) {
    const i = first + n
    const line = IDS[i % IDS.length] + ',' + ((i * 7919) % 100000 / 100).toFixed(2) + ',' +
      formatTimestamp(t0 + Math.floor(i / IDS.length) * 60_000_000 + (i % 3 === 0 ? 1000 : 0)) + '\n'
    if (size + line.length > CHUNK) break
    parts.push(line)
    size += line.length
    n++
  }
  return { buf: Buffer.from(parts.join('')), lines: n }
}

const pool: { buf: Buffer; lines: number }[] = []
let poolLines = 0
for (let k = 0; k < POOL_CHUNKS; k++) {
  const c = makeChunk(poolLines)
  pool.push(c)
  poolLines += c.lines
}

/** Chunks totalling exactly `total` lines (the last chunk is cut at a line end). */
function* source(total: number): Generator<Buffer> {
  let left = total
  for (let k = 0; left > 0; k++) {
    const c = pool[k % pool.length]
    if (c.lines <= left) { yield c.buf; left -= c.lines; continue }
    let p = 0
    for (let j = 0; j < left; j++) p = c.buf.indexOf(10, p) + 1
    yield c.buf.subarray(0, p)
    left = 0
  }
}

async function writeFile(total: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'csv-bench-'))
  const path = join(dir, 'data.csv')
  const ws = createWriteStream(path)
  for (const b of source(total)) if (!ws.write(b)) await once(ws, 'drain')
  ws.end()
  await once(ws, 'finish')
  return path
}

async function run(n: number, input: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<{ seconds: number; rows: number; errors: number }> {
  let rows = 0, errors = 0
  const t = process.hrtime.bigint()
  for await (const b of parseCsvStream(input, {
    onProgress: p => { if (!p.done) process.stderr.write(`  ${p.lines} lines, ${(p.bytes / 1048576).toFixed(0)} MiB\n`) },
  })) {
    rows += b.rows.length
    errors += b.errors.length
  }
  const seconds = Number(process.hrtime.bigint() - t) / 1e9
  if (rows !== n || errors !== 0) throw new Error(`expected ${n} rows, got ${rows} rows and ${errors} errors`)
  return { seconds, rows, errors }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

const file = FROM_FILE ? await writeFile(LINES) : undefined
const rates: number[] = []
try {
  for (let r = 1; r <= RUNS; r++) {
    process.stderr.write(`run ${r}/${RUNS}: ${LINES} lines${file ? ' from ' + file : ' from memory'}\n`)
    const input = file ? createReadStream(file, { highWaterMark: CHUNK }) : source(LINES)
    const res = await run(LINES, input)
    const lps = Math.round(res.rows / res.seconds)
    rates.push(lps)
    console.log(JSON.stringify({
      bench: 'csv-parse', run: r, source: file ? 'file' : 'memory', lines: res.rows,
      seconds: +res.seconds.toFixed(3), lines_per_s: lps,
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    }))
  }
} finally {
  if (file) await rm(join(file, '..'), { recursive: true, force: true })
}
console.log(JSON.stringify({
  bench: 'csv-parse', summary: true, source: file ? 'file' : 'memory', lines: LINES, runs: RUNS,
  lines_per_s: median(rates), peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
}))
