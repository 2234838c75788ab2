// Replay of a virtual datapoint over history (issue 14 item 2): input observations/s of
// POST /v2/project/{id}/virtual_datapoint/replay against a started platform (child process,
// embedded default). A formula virtual datapoint `P1+P2+P3+P4+P5` (default pins: count 1,
// max) over 5 input series of BENCH_PER observations each (1-minute steps, staggered by pin),
// posted over HTTP first (not timed); then the replay of the whole range, timed from request
// to answer (200 `done`: every output is written and readable). One output per input, so the
// replay also writes BENCH_PER × 5 outputs (replacing those of a first replay, which warms up).
// Usage: npm run bench:vdp-replay   (BENCH_RUNS=3, BENCH_PER=400000)
import { api, basicHeader, createProject, emit, median, progress, startServer } from './lib.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const PER = Number(process.env.BENCH_PER ?? 400_000)
const PINS = 5
const CHUNK = 50_000
const T0 = Date.parse('2024-01-01T00:00:00Z')

const server = await startServer()
try {
  const pid = await createProject(server, 'replay-bench')
  const pins = Object.fromEntries(Array.from({ length: PINS }, (_, k) => [`P${k + 1}`, { dataPointID: `in${k}` }]))
  await api(server, 'POST', `/v2/project/${pid}/virtual_datapoint?dataPointID=out&type=formula`, { pins, parameters: { formula: 'P1+P2+P3+P4+P5;' } })
  progress(`posting ${PER * PINS} input observations`)
  for (let from = 0; from < PER; from += CHUNK) {
    const body: Record<string, { time: string; value: number }[]> = {}
    for (let k = 0; k < PINS; k++) {
      const obs: { time: string; value: number }[] = []
      for (let i = from; i < Math.min(PER, from + CHUNK); i++) obs.push({ time: new Date(T0 + i * 60_000 + k * 1000).toISOString(), value: (i % 100) + k })
      body[`in${k}`] = obs
    }
    await api(server, 'POST', `/v2/project/${pid}/timeseries`, body)
  }
  const range = { dataPointID: 'out', start: new Date(T0).toISOString(), end: new Date(T0 + PER * 60_000).toISOString(), wait: 60 }
  const rates: number[] = []
  for (let run = 0; run <= RUNS; run++) {
    const started = performance.now()
    const res = await fetch(`${server.url}/v2/project/${pid}/virtual_datapoint/replay`, {
      method: 'POST', headers: { authorization: basicHeader, 'content-type': 'application/json' }, body: JSON.stringify(range),
    })
    const answer = await res.json()
    const seconds = (performance.now() - started) / 1000
    if (res.status !== 200 || answer.status !== 'done') throw new Error(`replay: ${res.status} ${JSON.stringify(answer)}`)
    if (run === 0) { progress('warm-up replay done'); continue }
    rates.push(answer.inputs / seconds)
    emit({ bench: 'vdp-replay', run, inputs: answer.inputs, outputs: answer.outputs, seconds: +seconds.toFixed(3), input_observations_per_s: Math.round(answer.inputs / seconds) })
  }
  emit({ bench: 'vdp-replay', summary: true, runs: RUNS, inputs: PER * PINS, input_observations_per_s_median: Math.round(median(rates)) })
} finally {
  await server.stop()
}
