// Benchmark of the MQTT line-protocol parser (protocol/line-protocol.ts), one core.
//   npm run bench:line-protocol -- [--lines 2000000] [--runs 3]
// Scenarios: messages of 1 line and of 500 lines of the typical form
// `building/floor1/temp value=21.5 1700000000000000000` (100 identifiers, ns timestamps),
// and 500-line messages with quoted/escaped identifiers and tag sets. Messages are built
// before timing (a pool cycled through), so only parsing is measured; the sink keeps a
// checksum so nothing is optimised away. Peer in the same run: a naive parser (toString,
// split('\n'), one regex per line), as many allocation-happy implementations do it.
// Output: one NDJSON line per run and one summary line per scenario and parser (median of
// the runs), as lines per wall-clock second and per second of process CPU time (the latter
// is steadier on a shared machine). Progress on stderr.

import { parseLines, type LineSink } from '../protocol/line-protocol.ts'
import { emit, median, progress } from './lib.ts'

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf('--' + name)
  return i >= 0 ? Number(process.argv[i + 1]) : dflt
}
const LINES = arg('lines', 2_000_000)
const RUNS = arg('runs', 3)

const IDS: string[] = []
for (let b = 1; b <= 4; b++) for (let r = 1; r <= 25; r++) IDS.push(`building${b}/floor${r % 5}/room${r}/temp`)
const QUOTED = IDS.map((id, i) => (i % 2 ? `"${id.replace(/\//g, ' ')}"` : id.replace(/\//g, '\\ ')))
const T0 = 1700000000000000000n

function line(i: number, fancy: boolean): string {
  const v = ((i * 7919) % 100000 / 100).toFixed(2)
  const ts = (T0 + BigInt(i) * 1_000_000_000n).toString()
  return fancy ? `${QUOTED[i % 100]},room=${i % 25},floor=${i % 5} value=${v} ${ts}` : `${IDS[i % 100]} value=${v} ${ts}`
}

function pool(linesPerMessage: number, fancy: boolean): Buffer[] {
  const out: Buffer[] = []
  const messages = Math.max(1, Math.ceil(100_000 / linesPerMessage))
  for (let m = 0; m < messages; m++) {
    let s = ''
    for (let k = 0; k < linesPerMessage; k++) s += line(m * linesPerMessage + k, fancy) + '\n'
    out.push(Buffer.from(s))
  }
  return out
}

let checksum = 0
const sink: LineSink = {
  observation(id, time, value) { checksum += value + id.length + (time & 1) },
  error(lineNo, reason) { throw new Error(`line ${lineNo}: ${reason}`) },
}

/** The peer: what a quick implementation looks like. Same output, same sink. */
const RE = /^("(?:[^"\\]|\\.)*"|(?:[^ ,\\]|\\.)+)(?:,(\S+))? value=(\S+) (\d+)$/
function naiveParse(payload: Buffer, s: LineSink): { good: number; bad: number } {
  let good = 0, bad = 0, n = 0
  for (const raw of payload.toString('utf8').split('\n')) {
    n++
    const l = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (l.trim() === '') continue
    const m = RE.exec(l)
    const value = m ? Number(m[3]) : NaN
    if (!m || !Number.isFinite(value)) { bad++; s.error(n, 'bad line'); continue }
    let id = m[1]
    if (id.startsWith('"')) id = id.slice(1, -1)
    id = id.replace(/\\([ ",\\])/g, '$1')
    const ts = m[4]
    const us = ts.length >= 18 ? Number(ts.slice(0, -3)) : ts.length >= 15 ? Number(ts) : ts.length >= 12 ? Number(ts) * 1000 : Number(ts) * 1e6
    good++
    s.observation(id, us, value, m[2])
  }
  return { good, bad }
}

const PARSERS: [string, (b: Buffer, s: LineSink) => { good: number; bad: number }][] = [
  ['parseLines', parseLines],
  ['split+regex', naiveParse],
]
const SCENARIOS: [string, number, boolean][] = [
  ['1-line', 1, false],
  ['500-line', 500, false],
  ['500-line-quoted-tags', 500, true],
]

for (const [scenario, perMessage, fancy] of SCENARIOS) {
  const msgs = pool(perMessage, fancy)
  const bytesPerLine = msgs.reduce((a, b) => a + b.length, 0) / (msgs.length * perMessage)
  for (const [parser, parse] of PARSERS) {
    // warm-up: let the JIT see the code before timing
    for (let k = 0; k < Math.min(msgs.length, 20_000 / perMessage + 1); k++) parse(msgs[k], sink)
    const rates: number[] = []
    const cpuRates: number[] = [] // CPU time includes the GC threads' time, wall time includes other processes
    for (let run = 1; run <= RUNS; run++) {
      const nMsgs = Math.ceil(LINES / perMessage)
      let lines = 0
      const c0 = process.cpuUsage()
      const t0 = process.hrtime.bigint()
      for (let k = 0; k < nMsgs; k++) lines += parse(msgs[k % msgs.length], sink).good
      const s = Number(process.hrtime.bigint() - t0) / 1e9
      const c = process.cpuUsage(c0)
      const cpu = (c.user + c.system) / 1e6
      const rate = Math.round(lines / s)
      rates.push(rate)
      cpuRates.push(Math.round(lines / cpu))
      emit({
        bench: 'line-protocol', scenario, parser, run, lines, seconds: +s.toFixed(3), cpu_seconds: +cpu.toFixed(3),
        lines_per_s: rate, lines_per_cpu_s: Math.round(lines / cpu), mb_per_s: +(rate * bytesPerLine / 1e6).toFixed(1),
      })
      progress(`${scenario} ${parser} run ${run}: ${(rate / 1e6).toFixed(2)} M lines/s`)
    }
    emit({ bench: 'line-protocol', summary: true, scenario, parser, runs: RUNS, bytes_per_line: +bytesPerLine.toFixed(1), median_lines_per_s: median(rates), median_lines_per_cpu_s: median(cpuRates) })
  }
}
progress(`checksum ${checksum}`)
