// Benchmark of the observation log (engine/log): publish→consume throughput and latency of
// the Kafka adapter against a real broker (scripts/services/kafka.sh start), with the
// in-memory adapter as the reference. NDJSON results on stdout, progress on stderr.
//
//   npm run bench:log-throughput -- [--total 1000000] [--batch 100,1000] [--inflight 16]
//                                   [--fetch-wait 10,100,500] [--latency 300] [--skip-memory]
//                                   [--idle-ms N] [--poll-timeout-ms N] [--linger-ms N]
//
// Per batch size (observations per publish, 12 projects round-robin):
//   publish   acked observations/s, --inflight publishes outstanding (compression none, lz4)
//   head      end to end: a group consuming while the batches are published, observations/s
//             from the first publish to the last observation handed to the handler, for each
//             --fetch-wait (fetch.wait.max.ms: the head-of-topic case of node-rdkafka#150)
//   catch-up  a new group reading the full topic, observations/s (including its group join)
// and latency: --latency sequential publishes of 10 observations: publish (ack) and
// publish→handler medians and p99, per --fetch-wait.
import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { openKafkaLog, type KafkaLogOptions } from '../engine/log/kafka-log.ts'
import { openMemoryLog } from '../engine/log/memory-log.ts'
import type { LogRecord, ObservationLog } from '../engine/log/port.ts'
import type { Observation } from '../engine/store/port.ts'
import { emit, median, progress } from './lib.ts'

const { values: args } = parseArgs({
  options: {
    total: { type: 'string', default: '1000000' },
    batch: { type: 'string', default: '100,1000' },
    inflight: { type: 'string', default: '16' },
    'fetch-wait': { type: 'string', default: '10,100,500' },
    latency: { type: 'string', default: '300' },
    'skip-memory': { type: 'boolean', default: false },
    'idle-ms': { type: 'string' },
    'poll-timeout-ms': { type: 'string' },
    'linger-ms': { type: 'string' },
  },
})
const TOTAL = Number(args.total)
const BATCHES = args.batch.split(',').map(Number)
const INFLIGHT = Number(args.inflight)
const FETCH_WAITS = args['fetch-wait'].split(',').map(Number)
const LATENCY_N = Number(args.latency)
const BROKERS = process.env.LINTEL_KAFKA_BROKERS ?? '127.0.0.1:19092'
const PROJECTS = 12
const run = randomBytes(3).toString('hex')
let topics = 0

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]
const round = (x: number, d = 0) => Number(x.toFixed(d))

function makeBatch(size: number, seq: number): Observation[] {
  const out = new Array<Observation>(size)
  const t0 = 1_709_251_200_000_000 + seq * size * 1000
  for (let i = 0; i < size; i++) out[i] = { series: 1 + (i % 50), time: t0 + i * 1000, value: (seq * size + i) % 1000 / 10 }
  return out
}

/** Publishes TOTAL observations in batches of `size`, `inflight` publishes outstanding. */
async function publishAll(log: ObservationLog, size: number, inflight: number): Promise<number> {
  const n = Math.ceil(TOTAL / size)
  const t0 = performance.now()
  let next = 0
  const worker = async () => {
    while (next < n) {
      const seq = next++
      await log.publish(1 + (seq % PROJECTS), makeBatch(size, seq))
    }
  }
  await Promise.all(Array.from({ length: inflight }, worker))
  return performance.now() - t0
}

function counter() {
  let count = 0
  let wake: (() => void) | undefined
  let target = Infinity
  return {
    handler: async (records: LogRecord[]) => {
      for (const r of records) count += r.observations.length
      if (count >= target) wake?.()
    },
    get count() { return count },
    reached(n: number): Promise<void> {
      target = n
      return count >= n ? Promise.resolve() : new Promise((r) => { wake = r })
    },
  }
}

const num = (s: string | undefined) => (s === undefined ? undefined : Number(s))
const TUNING: Partial<KafkaLogOptions> = { idleMs: num(args['idle-ms']), pollTimeoutMs: num(args['poll-timeout-ms']), lingerMs: num(args['linger-ms']) }
for (const k of Object.keys(TUNING) as Array<keyof KafkaLogOptions>) if (TUNING[k] === undefined) delete TUNING[k]
const kafkaOptions = (extra: Partial<KafkaLogOptions> = {}): KafkaLogOptions =>
  ({ brokers: BROKERS, topic: `lintel-bench-${run}-${++topics}`, partitions: 6, clientId: 'lintel-bench', ...TUNING, ...extra })

async function dropTopics(): Promise<void> {
  const { loadRdKafka } = await import('../engine/log/kafka-rdkafka.ts')
  const kafka = await loadRdKafka()
  const admin = kafka.AdminClient.create({ 'metadata.broker.list': BROKERS })
  await Promise.all(Array.from({ length: topics }, (_, i) => new Promise<void>((r) => admin.deleteTopic(`lintel-bench-${run}-${i + 1}`, 10_000, () => r()))))
  admin.disconnect()
}

async function throughput(adapter: string, open: (fetchWait?: number) => Promise<ObservationLog>, size: number, fetchWait?: number): Promise<void> {
  // head: the group is consuming while the topic fills.
  const log = await open(fetchWait)
  const c = counter()
  const sub = await log.consume(`bench-${run}-head-${size}-${fetchWait}`, c.handler, { maxRecords: 1000 })
  const t0 = performance.now()
  const pubMs = await publishAll(log, size, INFLIGHT)
  await c.reached(TOTAL)
  const e2eMs = performance.now() - t0
  await sub.stop()
  emit({ bench: 'log-throughput', adapter, scenario: 'head', batch: size, inflight: INFLIGHT, fetchWaitMaxMs: fetchWait ?? null, observations: TOTAL,
    ...TUNING, publishObsPerSec: round(TOTAL / pubMs * 1000), endToEndObsPerSec: round(TOTAL / e2eMs * 1000), consumerLagAtLastAckMs: round(e2eMs - pubMs) })
  // catch-up: a new group reads the full topic (the time includes the group join). The
  // in-memory log hands over records by reference: nothing to measure there.
  if (adapter === 'memory') { await log.close(); return }
  const c2 = counter()
  const t1 = performance.now()
  const sub2 = await log.consume(`bench-${run}-catchup-${size}-${fetchWait}`, c2.handler, { maxRecords: 1000 })
  await c2.reached(TOTAL)
  const catchMs = performance.now() - t1
  await sub2.stop()
  await log.close()
  emit({ bench: 'log-throughput', adapter, scenario: 'catch-up', batch: size, fetchWaitMaxMs: fetchWait ?? null, observations: TOTAL, obsPerSec: round(TOTAL / catchMs * 1000) })
}

async function latency(adapter: string, log: ObservationLog, fetchWait?: number): Promise<void> {
  const arrivals = new Map<number, number>()
  const sub = await log.consume(`bench-${run}-latency-${fetchWait}`, async (records) => {
    const now = performance.now()
    for (const r of records) arrivals.set(r.observations[0].value, now)
  })
  // Warm up: the group has joined once the first record arrives.
  await log.publish(1, [{ series: 1, time: 0, value: -1 }])
  while (!arrivals.has(-1)) await new Promise((r) => setTimeout(r, 10))
  const ack: number[] = []
  const e2e: number[] = []
  for (let i = 0; i < LATENCY_N; i++) {
    const batch = Array.from({ length: 10 }, (_, k) => ({ series: 1 + k, time: i * 10 + k, value: i }))
    const t0 = performance.now()
    await log.publish(1 + (i % PROJECTS), batch)
    ack.push(performance.now() - t0)
    while (!arrivals.has(i)) await new Promise((r) => setImmediate(r))
    e2e.push(arrivals.get(i)! - t0)
  }
  await sub.stop()
  await log.close()
  emit({ bench: 'log-latency', adapter, fetchWaitMaxMs: fetchWait ?? null, ...TUNING, publishes: LATENCY_N, observationsPerPublish: 10,
    publishAckMedianMs: round(median(ack), 2), publishAckP99Ms: round(p99(ack), 2), publishToHandlerMedianMs: round(median(e2e), 2), publishToHandlerP99Ms: round(p99(e2e), 2) })
}

async function main(): Promise<void> {
  progress(`log-throughput: ${TOTAL} observations per run, batches ${BATCHES}, ${INFLIGHT} publishes in flight, Kafka at ${BROKERS}`)
  const { loadRdKafka } = await import('../engine/log/kafka-rdkafka.ts')
  progress(`librdkafka ${(await loadRdKafka()).librdkafkaVersion}`)
  try {
    for (const size of TOTAL > 0 ? BATCHES : []) {
      if (!args['skip-memory']) {
        progress(`memory, batch ${size}`)
        await throughput('memory', async () => openMemoryLog({ retainObservations: TOTAL }), size)
      }
      for (const compression of ['none', 'lz4'] as const) {
        progress(`kafka publish only, batch ${size}, compression ${compression}`)
        const log = await openKafkaLog(kafkaOptions({ compression }))
        const ms = await publishAll(log, size, INFLIGHT)
        await log.close()
        emit({ bench: 'log-throughput', adapter: 'kafka', scenario: 'publish', batch: size, inflight: INFLIGHT, compression, observations: TOTAL, publishObsPerSec: round(TOTAL / ms * 1000) })
      }
      for (const fw of FETCH_WAITS) {
        progress(`kafka head + catch-up, batch ${size}, fetch.wait.max.ms ${fw}`)
        await throughput('kafka', async (w) => openKafkaLog(kafkaOptions({ fetchWaitMaxMs: w })), size, fw)
      }
    }
    if (LATENCY_N > 0) {
      if (!args['skip-memory']) await latency('memory', openMemoryLog())
      for (const fw of FETCH_WAITS) {
        progress(`kafka latency, fetch.wait.max.ms ${fw}`)
        await latency('kafka', await openKafkaLog(kafkaOptions({ fetchWaitMaxMs: fw })), fw)
      }
    }
  } finally {
    await dropTopics()
  }
}

await main()
