// The Kafka observation log against a real broker (scripts/services/kafka.sh start; address
// in LINTEL_KAFKA_BROKERS, default 127.0.0.1:19092): the shared contract plus what only this
// adapter promises. Without a broker (or without the optional node-rdkafka) the suite fails
// when CI is set and is skipped otherwise.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { decodeObservations, encodeObservations } from '../../engine/log/kafka-codec.ts'
import { LogUnavailableError, openKafkaLog, type KafkaLogOptions } from '../../engine/log/kafka-log.ts'
import { loadRdKafka } from '../../engine/log/kafka-rdkafka.ts'
import { reachable } from '../helpers/services.ts'
import { Collector, logContract, until } from './log-contract.ts'

const BROKERS = process.env.LINTEL_KAFKA_BROKERS ?? '127.0.0.1:19092'
const run = randomBytes(4).toString('hex')
let topics = 0
const created: string[] = []

async function unavailable(): Promise<string | undefined> {
  try {
    await loadRdKafka()
  } catch (err) {
    return (err as Error).message
  }
  const first = BROKERS.split(',')[0].trim()
  const colon = first.lastIndexOf(':')
  if (!(await reachable(first.slice(0, colon), Number(first.slice(colon + 1))))) return `no Kafka broker at ${first} (LINTEL_KAFKA_BROKERS); start one with scripts/services/kafka.sh start`
  return undefined
}

const options = (extra: Partial<KafkaLogOptions> = {}): KafkaLogOptions => {
  const topic = `lintel-test-${run}-${++topics}`
  created.push(topic)
  return { brokers: BROKERS, topic, partitions: 6, sessionTimeoutMs: 6_000, clientId: 'lintel-test', ...extra }
}

const why = await unavailable()
if (why) {
  if (process.env.CI) t.fail(`Kafka log tests cannot run: ${why}`)
  else t.test('kafka log', { skip: why }, async () => {})
} else {
  t.teardown(async () => {
    // Drop this run's topics so that a long-running development broker does not fill up.
    const kafka = await loadRdKafka()
    const admin = kafka.AdminClient.create({ 'metadata.broker.list': BROKERS })
    await Promise.all(created.map((topic) => new Promise<void>((resolve) => admin.deleteTopic(topic, 5_000, () => resolve()))))
    admin.disconnect()
  })

  logContract(t, 'kafka', () => openKafkaLog(options()), { waitMs: 30_000 })

  t.test('kafka: the codec round-trips float64 triples and refuses foreign messages', async (t) => {
    const batch = [{ series: 1, time: 1_709_251_200_123_456, value: -0.1 }, { series: 2 ** 31 + 5, time: 0, value: 1e308 }]
    t.same(decodeObservations(encodeObservations(batch)), batch)
    const unaligned = Buffer.concat([Buffer.from([0]), encodeObservations(batch)]).subarray(1)
    t.same(decodeObservations(unaligned), batch, 'an unaligned buffer decodes')
    t.equal(encodeObservations(batch, 1).length, 8 + 24, 'a slice of the batch')
    t.throws(() => decodeObservations(Buffer.from('{"json":true}')), /unknown format/)
    t.throws(() => decodeObservations(encodeObservations(batch).subarray(0, 20)), /announces 2/)
  })

  t.test('kafka: a large batch is split into messages and still arrives whole, in order', async (t) => {
    const log = await openKafkaLog(options({ chunkObservations: 1_000 }))
    t.teardown(() => log.close())
    const batch = Array.from({ length: 5_500 }, (_, i) => ({ series: 3, time: i, value: i }))
    await log.publish(42, batch)
    const c = await new Collector().start(log, `split-${run}`)
    await until(() => c.count() >= batch.length, 30_000, 'the split batch')
    t.equal(c.records.length, 6, 'six messages of at most 1000 observations')
    t.same(c.records.flatMap((r) => r.observations), batch)
    await c.sub.stop()
  })

  t.test('kafka: a message that is not an observation batch is reported and skipped', async (t) => {
    const opts = options()
    const log = await openKafkaLog(opts)
    t.teardown(() => log.close())
    const kafka = await loadRdKafka()
    const raw = new kafka.Producer({ 'metadata.broker.list': BROKERS, dr_cb: true })
    await new Promise<void>((resolve, reject) => raw.connect({ timeout: 10_000 }, (err) => (err ? reject(err) : resolve())))
    const delivered = new Promise<void>((resolve) => raw.on('delivery-report', () => resolve()))
    raw.produce(opts.topic!, null, Buffer.from('not ours'), '7', Date.now(), null)
    const poll = setInterval(() => raw.poll(), 5)
    await delivered
    clearInterval(poll)
    await new Promise<void>((resolve) => raw.disconnect(() => resolve()))
    await log.publish(7, [{ series: 1, time: 1, value: 1 }])
    const c = await new Collector().start(log, `poison-${run}`)
    await until(() => c.count() >= 1, 30_000, 'the good record')
    t.same(c.values(), [1])
    t.match(c.errors.map((e) => e.message).join('\n'), /skipping undecodable message/)
    await c.sub.stop()
  })

  t.test('kafka: a member\'s lag per partition it owns: records published before it started, 0 once handled', async (t) => {
    const log = await openKafkaLog(options({ partitions: 2 }))
    t.teardown(() => log.close())
    const p = log.partitionOf(7)
    for (let i = 0; i < 3; i++) await log.publish(7, [{ series: 1, time: i, value: i }])
    let release!: () => void
    const gate = new Promise<void>((resolve) => { release = resolve })
    let calls = 0
    const sub = await log.consume(`lag-${run}`, async () => { calls++; await gate })
    const lag = () => new Map(sub.lag!().map((l) => [l.partition, l.records]))
    await until(() => calls === 1 && lag().get(p) === 3, 30_000, () => `a lag of 3 on partition ${p}, the handler holding the first batch (${JSON.stringify(sub.lag!())})`)
    t.equal(lag().get(1 - p), 0, 'the empty partition')
    release()
    await until(() => lag().get(p) === 0, 30_000, () => `the lag back to 0 once handled (${JSON.stringify(sub.lag!())})`)
    await sub.stop()
    t.same(sub.lag!(), [], 'a stopped member owns nothing')
  })

  t.test('kafka: unreachable brokers give a clear error at open, in bounded time', async (t) => {
    const t0 = Date.now()
    const err = await openKafkaLog({ brokers: '127.0.0.1:1', topic: 'never', connectTimeoutMs: 2_000 }).catch((e) => e)
    t.type(err, LogUnavailableError)
    t.match(err.message, /Kafka unreachable at 127\.0\.0\.1:1/)
    t.equal(err.status, 503)
    t.ok(Date.now() - t0 < 10_000, `failed after ${Date.now() - t0} ms`)
  })
}
