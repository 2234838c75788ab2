// One member of a consumer group of the Kafka log (kafka-log.ts consume()): reads batches,
// hands them to the handler, commits what was handled, backs off on a rejecting handler.
import { decodeObservations } from './kafka-codec.ts'
import type { RdConsumer, RdError, RdKafka, RdMessage, RdTopicPartition, RdTopicPartitionOffset } from './kafka-rdkafka.ts'
import type { ConsumeOptions, LogHandler, LogRecord } from './port.ts'
import { asError, disconnect, MAX_BACKOFF_MS, type KafkaLogOptions } from './kafka-client.ts'
import { ConsumerLag } from './kafka-lag.ts'

export class KafkaMember {
  private stopping = false
  private done: Promise<void> = Promise.resolve()
  /** Next offset per "topic\0partition" of what the handler has handled. */
  private readonly handled = new Map<string, RdTopicPartitionOffset>()
  private stopped: Promise<void> | undefined
  /** The lag of the partitions owned, for the operator's metrics. */
  readonly lag: ConsumerLag

  constructor(private readonly kafka: RdKafka, readonly consumer: RdConsumer, private readonly handler: LogHandler,
    private readonly options: ConsumeOptions, private readonly opts: KafkaLogOptions) {
    this.lag = new ConsumerLag(consumer, (err) => this.report(err))
  }

  private report(err: unknown): void { this.options.onError?.(asError(err)) }

  /** Partitions of the topic this member owns, as told by the last rebalance. */
  private owned = new Set<number>()

  /** A rebalance (eager: revoke everything, then assign the new share): tell the owner. */
  rebalanced(err: RdError, assignment: RdTopicPartition[]): void {
    const E = this.kafka.CODES.ERRORS
    const parts = assignment.map((a) => a.partition)
    let change: { assigned: number[]; revoked: number[] } | undefined
    if (err.code === E.ERR__ASSIGN_PARTITIONS) {
      change = { assigned: parts.filter((p) => !this.owned.has(p)), revoked: [] }
      for (const p of parts) this.owned.add(p)
      this.lag.assigned(assignment)
    } else if (err.code === E.ERR__REVOKE_PARTITIONS) {
      change = { assigned: [], revoked: parts.filter((p) => this.owned.has(p)) }
      for (const p of parts) this.owned.delete(p)
      this.lag.revoked(assignment)
    } else {
      this.report(new Error(`Kafka rebalance failed: ${err.message}`))
    }
    if (change && (change.assigned.length || change.revoked.length)) {
      try { this.options.onPartitions?.(change) } catch (e) { this.report(e) }
    }
  }

  private wakeUp: (() => void) | undefined
  /** A sleep that stop() cuts short. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.wakeUp = undefined; resolve() }, ms)
      this.wakeUp = () => { clearTimeout(timer); this.wakeUp = undefined; resolve() }
    })
  }

  run(): void {
    this.done = this.loop().catch((err) => this.report(err))
  }

  /** Up to n messages; null after an error (reported), so that the loop backs off. */
  private take(n: number): Promise<RdMessage[] | null> {
    return new Promise((resolve) => {
      this.consumer.consume(n, (err, messages) => {
        const E = this.kafka.CODES.ERRORS
        if (err && err.code !== E.ERR__PARTITION_EOF && err.code !== E.ERR__TIMED_OUT) {
          this.report(err)
          return resolve(null)
        }
        resolve(messages ?? [])
      })
    })
  }

  private async loop(): Promise<void> {
    const max = this.options.maxRecords ?? 500
    const idle = this.opts.idleMs ?? 25
    while (!this.stopping) {
      const messages = await this.take(max)
      if (!messages?.length) { if (!this.stopping) await this.pause(messages ? idle : 1_000); continue }
      const records: LogRecord[] = []
      for (const m of messages) {
        try {
          const project = Number(String(m.key))
          if (!Number.isSafeInteger(project)) throw new Error(`key ${JSON.stringify(String(m.key))} is not a project id`)
          records.push({ project, observations: decodeObservations(m.value ?? Buffer.alloc(0)) })
        } catch (err) {
          // A message that is not ours can never be handled: report it and go past it.
          this.report(new Error(`skipping undecodable message ${m.topic}[${m.partition}]@${m.offset}: ${(err as Error).message}`))
        }
      }
      let delay = this.options.retryDelayMs ?? 500
      for (;;) {
        try {
          if (records.length) await this.handler(records)
          break
        } catch (err) {
          this.report(new Error(`handling ${records.length} records failed (the store write?); retried in ${delay} ms: ${asError(err).message}`, { cause: err }))
          if (this.stopping) return // abandoned uncommitted: re-read by whoever owns the partition next
          await this.pause(delay)
          if (this.stopping) return
          delay = Math.min(delay * 2, MAX_BACKOFF_MS)
        }
      }
      const touched = new Set<string>()
      for (const m of messages) {
        const k = `${m.topic}\0${m.partition}`
        touched.add(k)
        const prev = this.handled.get(k)
        if (!prev || prev.offset <= m.offset) this.handled.set(k, { topic: m.topic, partition: m.partition, offset: m.offset + 1 })
        this.lag.handled(m, m.offset + 1)
      }
      this.commit(touched)
    }
  }

  /**
   * Commits the handled offsets of the partitions this member still owns: asynchronously
   * those of one batch, or synchronously all of them (at stop).
   */
  private commit(only: Set<string> | 'all'): void {
    const sync = only === 'all'
    let owned: Set<string>
    try {
      owned = new Set(this.consumer.assignments().map((a) => `${a.topic}\0${a.partition}`))
    } catch { return }
    if (!sync) for (const [k] of this.handled) if (!owned.has(k)) this.handled.delete(k)
    const offsets = [...this.handled].filter(([k]) => owned.has(k) && (sync || only.has(k))).map(([, v]) => v)
    if (offsets.length === 0) return
    try {
      if (sync) this.consumer.commitSync(offsets)
      else this.consumer.commit(offsets)
    } catch (err) {
      this.report(new Error(`Kafka commit failed (records will be re-read): ${(err as Error).message}`))
    }
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true
      this.wakeUp?.()
      await this.done
      if (this.consumer.isConnected()) {
        this.commit('all')
        try { this.consumer.unsubscribe() } catch { /* already gone */ }
      }
      await disconnect(this.consumer)
    })()
    return this.stopped
  }
}
