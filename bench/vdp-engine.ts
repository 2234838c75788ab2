// CPU cost of the live virtual-datapoint engine per evaluation (issue 14 item 1), in one
// process without the store, ingest or network: the same 1,000 formula virtual datapoints
// `P1+P2+P3+P4+P5` over 5,000 input series as bench:vdp, wired as the runtime wires them
// (openReplay on the observation bus → buildPipeline → OutputSink), fed by bus.publish of
// 1,000-observation batches (one store commit's delivery), outputs to an ingest that only
// counts. Not included: the runtime's lateness watch, the store and everything before it.
// Figure: process CPU time (user + system) per evaluation, so it varies less with the
// machine's load than wall time (it still does: caches are shared). Runs of 300,000 evaluations.
// Usage: npm run bench:vdp-engine
import { ObservationBus } from '../engine/observation-bus.ts'
import { openReplay } from '../engine/stream/replay.ts'
import { buildPipeline, inputRange } from '../engine/vdp/pipeline.ts'
import { OutputSink } from '../engine/vdp/output-sink.ts'
import { parseVdpConfig } from '../engine/vdp/config.ts'

const VDPS = 1000, PINS = 5
const bus = new ObservationBus()
let outputs = 0
const sink = new OutputSink(async (_p, b) => { outputs += b.length })
const owner = { written() {} }
const config = parseVdpConfig('formula', { pins: Object.fromEntries(Array.from({ length: PINS }, (_, k) => [`P${k + 1}`, { dataPointID: `in${k}` }])), parameters: { formula: 'P1+P2+P3+P4+P5;' } })
for (let v = 0; v < VDPS; v++) {
  const inputs = config.pins.map((p, k) => ({ key: p.name, series: v * PINS + k, range: inputRange(config, p) }))
  const replay = await openReplay({ read: async () => [], live: (s) => bus.series(s) }, inputs, 100000 + v)
  buildPipeline(config, replay.input, { alreadyStored: replay.alreadyStored }).subscribe({ next: (o) => sink.write(1, { series: 100000 + v, time: o.time, value: o.value }, owner) })
  await replay.feed()
}
let round = 0
const slices = (rounds: number) => {
  const batches: { series: number; time: number; value: number }[][] = []
  for (let r = round; r < round + rounds; r++) for (let s = 0; s < 5; s++) {
    const b = []
    for (let v = s * 200; v < s * 200 + 200; v++) for (let k = 0; k < PINS; k++) b.push({ series: v * PINS + k, time: (r * 10 + k) * 1e6, value: (r + v + k) % 100 })
    batches.push(b)
  }
  round += rounds
  return batches
}
const run = async (warmUp = false) => {
  const batches = slices(60)
  const c0 = process.cpuUsage(); const t0 = performance.now(); const o0 = outputs
  for (const b of batches) { bus.publish(b); await new Promise((r) => setImmediate(r)) }
  const c = process.cpuUsage(c0); const n = outputs - o0
  if (!warmUp && n !== batches.length * 1000) throw new Error(`expected ${batches.length * 1000} evaluations, got ${n}`)
  return { evaluations: n, cpu_us_per_eval: +((c.user + c.system) / n).toFixed(3), wall_ms: +(performance.now() - t0).toFixed(0) }
}
await run(true) // warm-up: the first round waits for every pin's first value
for (let i = 1; i <= 3; i++) console.log(JSON.stringify({ bench: 'vdp-engine', run: i, ...await run() }))
