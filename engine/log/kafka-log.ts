// The observation log on Apache Kafka (scaled mode), with node-rdkafka, an optional
// dependency loaded only by openKafkaLog.
//
// Producer: idempotent (enable.idempotence=true, hence acks=all and ordered retries), keyed
// by project, lingering a few ms to batch. The partition is chosen here, by partitionOf():
// murmur2 of the key, as librdkafka's murmur2 partitioner and Java clients do (so records of
// a topic written before are where they were), and workers use the same function to know
// which projects their partitions carry (issue 17 item 3). Every
// message carries a per-publish opaque; its delivery report settles that publish's promise,
// so publish() resolves only once the broker acknowledged every chunk of the batch, and
// rejects (LogUnavailableError, a 503) when the broker did not within deliveryTimeoutMs or
// the local queue is full.
//
// Consumer (one KafkaConsumer per consume() call = one member of the group): no auto commit;
// batches come from consume(n) with a short timeout (it occupies a libuv pool thread while
// it waits, so an idle member sleeps in JS between polls instead); the handler gets the
// decoded records; once it resolves, the next offsets of the handled messages are committed
// for the partitions still assigned. A rejecting handler gets the same records again after
// a back-off (nothing else is read meanwhile), so a project's order holds. stop() commits
// synchronously what was handled, then leaves the group. A member that dies uncommitted has
// its records re-read by the member that inherits its partitions (at-least-once).
//
// Measured on this 2-core machine, one KRaft node on loopback (npm run bench:log-throughput,
// 1 M observations, 12 projects, 16 publishes in flight, value codec of kafka-codec.ts; the
// ranges are over three runs on a shared machine): publish acked 0.9-2.6 M obs/s with
// 1000-observation batches (lz4 no better on loopback), 0.17-0.39 M obs/s with 100; end
// to end with a group reading at the head of the topic 1.2-2.5 M obs/s (1000) and
// 0.15-0.42 M obs/s (100), consumer lag at the last ack 0-9 ms: no head-of-topic collapse
// with consume(n) + partition EOF; a new group reading 1 M obs, join included, ~0.8 M obs/s.
// Latency of a 10-observation publish: ack median ~3 ms (p99 8-10 ms); publish→handler
// median 15 ms with fetch.wait.max.ms 10, 23 ms with 25..500 (p99 21-37 ms vs 27-90 ms),
// hence the default of 10.
import type { Observation } from '../store/port.ts'
import { encodeObservations } from './kafka-codec.ts'
import { loadRdKafka, type RdDeliveryReport, type RdError, type RdKafka, type RdMetadata, type RdProducer, type RdTopicPartition } from './kafka-rdkafka.ts'
import { LogUnavailableError, type ConsumeOptions, type LogHandler, type LogSubscription, type ObservationLog } from './port.ts'
import { asError, connect, disconnect, sleep, type KafkaLogOptions } from './kafka-client.ts'
import { KafkaMember } from './kafka-member.ts'
import { keyPartition } from './kafka-partition.ts'

export { LogUnavailableError }
export type { KafkaLogOptions } from './kafka-client.ts'

interface Pending { resolve: () => void; reject: (err: Error) => void; timer?: NodeJS.Timeout }

export class KafkaObservationLog implements ObservationLog {
  readonly topic: string
  private readonly pending = new Set<Pending>()
  private readonly members = new Set<KafkaMember>()
  private poller: NodeJS.Timeout | undefined
  private closed = false
  private readonly chunk: number

  constructor(private readonly kafka: RdKafka, private readonly producer: RdProducer, private readonly opts: KafkaLogOptions,
    /** Partitions of the topic when the log was opened (a topic that grows later needs a restart). */
    readonly partitions: number) {
    this.topic = opts.topic ?? 'lintel.observations'
    this.chunk = opts.chunkObservations ?? 20_000
    producer.on('delivery-report', (err: RdError | null, report: RdDeliveryReport) => {
      const p = report.opaque as Pending | undefined
      if (!p || !this.pending.has(p)) return
      this.settled(p)
      if (err) p.reject(new LogUnavailableError(`Kafka did not acknowledge the batch: ${err.message}`))
      else p.resolve()
    })
    producer.on('event.error', (err: RdError) => opts.onError?.(asError(err)))
  }

  async publish(project: number, batch: readonly Observation[]): Promise<void> {
    if (this.closed) throw new LogUnavailableError('observation log is closed')
    if (!Number.isSafeInteger(project)) throw new TypeError(`project must be an integer, got ${project}`)
    if (batch.length === 0) return
    const key = String(project)
    const partition = this.partitionOf(project)
    const now = Date.now()
    const acks: Array<Promise<void>> = []
    for (let i = 0; i < batch.length; i += this.chunk) {
      const value = encodeObservations(batch, i, Math.min(batch.length, i + this.chunk))
      acks.push(new Promise<void>((resolve, reject) => {
        const p: Pending = { resolve, reject }
        try {
          this.producer.produce(this.topic, partition, value, key, now, p)
        } catch (err) {
          const e = err as RdError
          reject(e.code === this.kafka.CODES.ERRORS.ERR__QUEUE_FULL
            ? new LogUnavailableError('Kafka producer queue is full: the broker does not keep up, retry later')
            : new LogUnavailableError(`Kafka refused the batch: ${e.message}`))
          return
        }
        this.pending.add(p)
        this.poll()
        // librdkafka reports the timeout only through poll(), which throws while the client
        // counts as disconnected (broker down): settle it here too, a little after the
        // librdkafka deadline, so a publish never waits forever.
        const limit = (this.opts.deliveryTimeoutMs ?? 10_000) + 2_000
        p.timer = setTimeout(() => {
          if (!this.pending.has(p)) return
          this.settled(p)
          reject(new LogUnavailableError(`Kafka did not acknowledge the batch within ${limit} ms: the broker is unreachable or overloaded`))
        }, limit)
      }))
    }
    // Every chunk must be acknowledged; the first failure rejects (already sent chunks may
    // still land: a retried publish then replays them, which idempotent stores absorb).
    await Promise.all(acks)
  }

  partitionOf(project: number): number {
    return keyPartition(String(project), this.partitions)
  }

  /** Delivery reports come from poll(): poll on a (ref'd) timer while a publish waits. */
  private poll(): void {
    if (this.poller) return
    this.poller = setInterval(() => {
      try { this.producer.poll() } catch { /* not connected: the delivery timeout settles it */ }
    }, 1)
  }

  private settled(p: Pending): void {
    clearTimeout(p.timer)
    this.pending.delete(p)
    if (this.pending.size === 0 && this.poller) { clearInterval(this.poller); this.poller = undefined }
  }

  async consume(group: string, handler: LogHandler, options: ConsumeOptions = {}): Promise<LogSubscription> {
    if (this.closed) throw new LogUnavailableError('observation log is closed')
    const o = this.opts
    const member = new KafkaMember(this.kafka, new this.kafka.KafkaConsumer({
      'metadata.broker.list': o.brokers,
      'client.id': o.clientId ?? 'lintel',
      'group.id': group,
      'enable.auto.commit': false,
      'enable.auto.offset.store': false,
      'enable.partition.eof': true,
      'fetch.wait.max.ms': o.fetchWaitMaxMs ?? 10,
      'session.timeout.ms': o.sessionTimeoutMs ?? 10_000,
      'heartbeat.interval.ms': Math.max(500, Math.floor((o.sessionTimeoutMs ?? 10_000) / 5)),
      'queued.max.messages.kbytes': 16_384,
      'partition.assignment.strategy': 'range,roundrobin',
      // node-rdkafka's own assign/unassign, after the 'rebalance' event below is emitted.
      rebalance_cb: true,
      // Notice new partitions (and a topic created after subscribing) within seconds, not 5 min.
      'topic.metadata.refresh.interval.ms': 10_000,
      offset_commit_cb: (err: RdError | null) => { if (err) options.onError?.(new Error(`Kafka commit failed (records will be re-read): ${err.message}`)) },
      ...o.consumerConfig,
    }, { 'auto.offset.reset': 'earliest' }), handler, options, o)
    member.consumer.on('event.error', (err: RdError) => (options.onError ?? o.onError)?.(asError(err)))
    member.consumer.on('rebalance', (err: RdError, assignment: RdTopicPartition[]) => member.rebalanced(err, assignment))
    await connect(member.consumer, o.connectTimeoutMs ?? 10_000, `consumer of group ${group}`, o.brokers)
      .catch(async (err) => { await disconnect(member.consumer); throw err })
    member.consumer.setDefaultConsumeTimeout(o.pollTimeoutMs ?? 20)
    member.consumer.subscribe([this.topic])
    this.members.add(member)
    member.run()
    return { stop: async () => { await member.stop(); this.members.delete(member) }, lag: () => member.lag.now() }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await Promise.all([...this.members].map((m) => m.stop()))
    this.members.clear()
    await new Promise<void>((resolve) => {
      try { this.producer.flush(this.opts.deliveryTimeoutMs ?? 10_000, () => resolve()) } catch { resolve() }
    })
    for (const p of [...this.pending]) { this.settled(p); p.reject(new LogUnavailableError('observation log closed before Kafka acknowledged the batch')) }
    if (this.poller) { clearInterval(this.poller); this.poller = undefined }
    await disconnect(this.producer)
  }
}

/**
 * Opens the Kafka log: loads node-rdkafka, creates the topic if missing, connects the
 * producer. Rejects with LogUnavailableError when the brokers cannot be reached.
 */
export async function openKafkaLog(opts: KafkaLogOptions): Promise<KafkaObservationLog> {
  const kafka = await loadRdKafka()
  const topic = opts.topic ?? 'lintel.observations'
  const connectTimeout = opts.connectTimeoutMs ?? 10_000
  const producer = new kafka.Producer({
    'metadata.broker.list': opts.brokers,
    'client.id': opts.clientId ?? 'lintel',
    'enable.idempotence': true,
    acks: 'all',
    'linger.ms': opts.lingerMs ?? 2,
    'message.timeout.ms': opts.deliveryTimeoutMs ?? 10_000,
    'compression.codec': opts.compression ?? 'none',
    'queue.buffering.max.kbytes': opts.queueKbytes ?? 65_536,
    'partitioner': 'murmur2_random',
    dr_cb: true,
    ...opts.producerConfig,
  })
  await connect(producer, connectTimeout, 'producer', opts.brokers).catch(async (err) => { await disconnect(producer); throw err })
  if (opts.createTopic ?? true) {
    const admin = kafka.AdminClient.create({ 'metadata.broker.list': opts.brokers, 'client.id': opts.clientId ?? 'lintel' })
    try {
      await new Promise<void>((resolve, reject) => {
        admin.createTopic({ topic, num_partitions: opts.partitions ?? 6, replication_factor: opts.replicationFactor ?? 1 }, connectTimeout, (err) => {
          if (!err || err.code === kafka.CODES.ERRORS.ERR_TOPIC_ALREADY_EXISTS) resolve()
          else reject(new LogUnavailableError(`cannot create Kafka topic ${topic} at ${opts.brokers}: ${err.message}`))
        })
      })
    } catch (err) {
      admin.disconnect()
      await disconnect(producer)
      throw err
    }
    admin.disconnect()
  }
  const partitions = await topicReady(producer, topic, connectTimeout, opts.brokers).catch(async (err) => { await disconnect(producer); throw err })
  return new KafkaObservationLog(kafka, producer, opts, partitions)
}

/**
 * Waits until the brokers' metadata shows the topic with a leader for every partition: a
 * topic just created is not yet known everywhere, and a consumer that subscribes to it too
 * early only finds it at its next metadata refresh.
 */
async function topicReady(client: RdProducer, topic: string, timeout: number, brokers: string): Promise<number> {
  const deadline = Date.now() + timeout
  let last = 'no metadata yet'
  for (;;) {
    const md = await new Promise<RdMetadata | Error>((resolve) =>
      client.getMetadata({ topic, timeout: Math.min(2_000, timeout) }, (err, metadata) => resolve(err ?? metadata)))
    if (md instanceof Error) last = md.message
    else {
      const t = md.topics.find((x) => x.name === topic)
      if (t && t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0)) return t.partitions.length
      last = t ? `${t.partitions.length} partitions, some without a leader` : 'topic not in metadata'
    }
    if (Date.now() > deadline) throw new LogUnavailableError(`Kafka topic ${topic} at ${brokers} is not ready: ${last}`)
    await sleep(100)
  }
}
