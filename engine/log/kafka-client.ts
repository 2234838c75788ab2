// The Kafka log's options and the small helpers its producer and consumers share
// (kafka-log.ts, kafka-member.ts): connecting and disconnecting a node-rdkafka client.
import type { RdError } from './kafka-rdkafka.ts'
import { LogUnavailableError } from './port.ts'

export interface KafkaLogOptions {
  /** Bootstrap brokers, "host:port[,host:port...]" (LINTEL_KAFKA_BROKERS). */
  brokers: string
  /** Topic of the log (default "lintel.observations"). */
  topic?: string
  /** Partitions when the topic is created here (default 6). */
  partitions?: number
  /** Replication factor when the topic is created here (default 1; -1 = the broker's default). */
  replicationFactor?: number
  /** Create the topic at open when it is missing (default true). */
  createTopic?: boolean
  clientId?: string
  /** Time the broker has to acknowledge a publish before it rejects (message.timeout.ms, default 10 000). */
  deliveryTimeoutMs?: number
  /** Time to reach the brokers at open and at consume() (default 10 000). */
  connectTimeoutMs?: number
  /** Producer linger (linger.ms, default 2). */
  lingerMs?: number
  /** Observations per Kafka message; larger batches are split (default 20 000, 480 KB). */
  chunkObservations?: number
  /** Producer compression (compression.codec, default "none": on loopback it only costs CPU). */
  compression?: 'none' | 'lz4' | 'snappy' | 'gzip' | 'zstd'
  /** Local producer buffer before publish answers "overloaded" (queue.buffering.max.kbytes, default 65 536). */
  queueKbytes?: number
  /** Consumer session timeout: how soon a dead member's partitions move (default 10 000). */
  sessionTimeoutMs?: number
  /** Broker-side wait of a fetch with no data (fetch.wait.max.ms, default 10: see the figures above). */
  fetchWaitMaxMs?: number
  /** How long one consume(n) call waits for the first message (default 20). */
  pollTimeoutMs?: number
  /** JS sleep of an idle member between polls (default 25). */
  idleMs?: number
  /** Extra librdkafka settings for the producer / the consumers (override the above). */
  producerConfig?: Record<string, string | number | boolean>
  consumerConfig?: Record<string, string | number | boolean>
  /** Told of client-level errors (broker down, failed commits); they are retried. */
  onError?: (err: Error) => void
}

export const MAX_BACKOFF_MS = 30_000

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
export const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)))

export function connect(client: { connect(o: { timeout?: number }, cb: (err: RdError | null) => void): unknown }, timeout: number, what: string, brokers: string): Promise<void> {
  return new Promise((resolve, reject) => {
    client.connect({ timeout }, (err) => {
      if (err) reject(new LogUnavailableError(`Kafka unreachable at ${brokers} (${what}): ${err.message}`))
      else resolve()
    })
  })
}

export function disconnect(client: { disconnect(cb?: (err: unknown) => void): unknown; isConnected(): boolean }): Promise<void> {
  return new Promise((resolve) => {
    if (!client.isConnected()) return resolve()
    client.disconnect(() => resolve())
  })
}
