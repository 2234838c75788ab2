// Preloaded into the server process by bench/reads.ts: measures the event-loop delay with
// perf_hooks.monitorEventLoopDelay. On SIGUSR2 it writes {p50, p99, max} in ms to the file
// named by LINTEL_LOOP_PROBE and resets the histogram.
import { writeFileSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'

const h = monitorEventLoopDelay({ resolution: 1 })
h.enable()
process.on('SIGUSR2', () => {
  const ms = (ns: number) => Math.round(ns / 1e4) / 100
  writeFileSync(process.env.LINTEL_LOOP_PROBE!, JSON.stringify({ p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) }))
  h.reset()
})
