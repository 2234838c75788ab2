// The observation path of one mode (DESIGN.md "Two ways to run"): how ingested observations
// become durable and reach what reacts to them. The composition root opens one path, once,
// from the configuration (server/observation-path.ts), and wires everything else against
// this interface:
//   embedded (embedded.ts): ingest queue → store → bus, all in one process;
//   scaled   (scaled.ts):   ingest → observation log (Kafka); a worker's member of the
//                           "lintel-store" consumer group writes the store, then feeds the bus.
// Both keep the storage-first rule: the bus only ever carries observations already stored,
// so a virtual datapoint or an alert never reacts to data that could still be lost.
import type { Ingest } from '../ingest-port.ts'
import type { PartitionLag } from '../log/port.ts'
import type { ObservationBus } from '../observation-bus.ts'
import type { TimeseriesStore } from '../store/port.ts'

export interface ObservationPath {
  /** Observations as they are stored (in this process: fed by this path only). */
  readonly bus: ObservationBus
  /** The store as the API uses it (appends through it are published on the bus once durable). */
  readonly store: TimeseriesStore
  /** The store without the bus: reads of the runtimes. */
  readonly reads: TimeseriesStore
  /** Where ingest goes (HTTP, MQTT, import): resolves once durable or accepted by the log. */
  readonly ingest: Ingest
  /** Where the runtimes' outputs go (embedded: the store, so they reach the bus; scaled: the log). */
  readonly outputs: Ingest
  /**
   * The worker's part of the path (scaled: joins the consumer group that writes the store and
   * feeds the bus; embedded: nothing, the store feeds the bus). Resolves once it runs.
   * `onShare` is told when the worker's share of projects changed, with the log partitions it
   * owns now (scaled: partitions moved between the group's members; called before records
   * of a gained partition are handled).
   */
  startWorker(onShare?: (partitions: number[]) => void): Promise<void>
  /**
   * Whether this process runs the project's runtimes (virtual datapoints, alerts): embedded,
   * every project; scaled, the projects of the log partitions this worker owns now.
   */
  owns(projectId: number): boolean
  /** Counters of the path (the ingest queue's in the embedded mode). */
  metrics(): Record<string, number>
  /** Scaled, on a worker: records of each log partition it owns not yet stored. Embedded: none. */
  consumerLag(): PartitionLag[]
  /** Resolves once everything accepted is stored (graceful shutdown, after ingest stopped). */
  drained(): Promise<void>
  /** Stops the worker's part, closes the log and the store. */
  close(): Promise<void>
}
