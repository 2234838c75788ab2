// Port of the observation log (DESIGN.md "Two ways to run"): ingest publishes batches of
// observations keyed by project; consumer groups (the store writer, the stream engine) each
// read all of them. Adapters: Apache Kafka (kafka-log.ts, the scaled mode) and in-memory
// (memory-log.ts: the reference of the contract suite and the log of tests; the embedded
// default runs without a log: engine/observation-path/embedded.ts). The log's one production
// user is the scaled path (observation-path/scaled.ts) on Kafka. Both pass test/engine/log-contract.ts.
//
// Guarantees every adapter gives:
// - publish() resolves only once the log has durably accepted the whole batch (Kafka:
//   acks=all from an idempotent producer); it rejects with a clear error otherwise, and then
//   the caller must not acknowledge its own client.
// - One project's batches are read in publish order (a project maps to one partition).
// - At-least-once per group: a member's handler gets records, and only after the handler
//   resolves are they committed for the group. Records of a handler that rejects, or of a
//   member that stops or dies before its handler resolved, are delivered again (to the same
//   member after a back-off, or to the next member of the group). Consumers therefore must be
//   idempotent (store writes replace the same (series, time)).
// - A group that never committed starts at the oldest record the log still holds.
// - A member learns which partitions it owns (onPartitions): before it gets a partition's
//   records and after its last handler call of a partition it lost. partitionOf(project)
//   names the partition of a project, so a worker runs the projects of its partitions.
import { OverloadedError } from '../../core/errors.ts'
import type { Observation } from '../store/port.ts'

/**
 * The log cannot take a batch now (closed, broker unreachable, not acknowledged in time,
 * local queue full): a 503, the client should retry later.
 */
export class LogUnavailableError extends OverloadedError {
  constructor (message: string, options?: ErrorOptions) { super(message, 'LOG_UNAVAILABLE', options) }
}

/** One published batch (or one chunk of a large batch) as a consumer sees it. */
export interface LogRecord {
  project: number
  observations: Observation[]
}

export interface ConsumeOptions {
  /** Upper bound of records handed to one handler call (default 500). */
  maxRecords?: number
  /** First back-off after a handler rejected, doubled up to 30 s (default 500 ms). */
  retryDelayMs?: number
  /** Told of every handler rejection and consumer error (the batch is retried). */
  onError?: (err: Error) => void
  /**
   * Told when this member's partitions change (a member joined or left the group): the
   * partitions it gained and lost. Called before records of a gained partition are handed
   * to the handler; a lost partition's records are not handed out after it returns.
   */
  onPartitions?: (change: PartitionChange) => void
}

export interface PartitionChange {
  assigned: number[]
  revoked: number[]
}

export interface LogSubscription {
  /**
   * Stops this member: no new handler call starts, an in-flight handler is awaited (a
   * batch in back-off is abandoned uncommitted), what was handled is committed, and the
   * member leaves its group so the others take over its partitions.
   */
  stop(): Promise<void>
  /** Records of each partition this member owns that it has not handled yet (Kafka only). */
  lag?(): PartitionLag[]
}

/** A partition's records not yet handled by a member: its high watermark minus the member's next offset. */
export interface PartitionLag {
  topic: string
  partition: number
  records: number
}

export type LogHandler = (records: LogRecord[]) => Promise<void>

export interface ObservationLog {
  /** Resolves when the log has durably accepted the batch (Kafka: acks=all, idempotent producer). */
  publish(project: number, batch: readonly Observation[]): Promise<void>
  /** Consume as a member of `group`: offsets are committed after the handler resolves (at-least-once). */
  consume(group: string, handler: LogHandler, options?: ConsumeOptions): Promise<LogSubscription>
  /** The partition a project's batches go to (all of them: one project, one partition). */
  partitionOf(project: number): number
  /** Stops every subscription, waits for outstanding publishes, releases connections. */
  close(): Promise<void>
}
