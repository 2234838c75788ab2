// The scaled observation path: ingest publishes to the observation log (Kafka), keyed by
// project; on a worker, one member of the "lintel-store" consumer group writes what it reads
// to the store and only then publishes it on the worker's bus (storage-first), so the
// runtimes of that worker react to stored data only. Offsets are committed after the handler
// resolved (at-least-once): a batch re-read after a crash is written again, which the store
// absorbs (both adapters replace the same (series, time)), and published again on the bus.
// The runtimes' outputs go to the log as well, so they are stored by the same group.
//
// Several workers (issue 17 item 3): the log is partitioned by project and the workers'
// members of the store group split the partitions, so each worker stores, and runs the
// virtual datapoints and alerts of, the projects of its partitions (owns()). When a
// partition moves (a worker joined, left or died), the loser stops those runtimes as the
// partition is revoked and the gainer starts them from the store (windows rebuilt, outputs
// already stored not computed again) before it handles the partition's records. An output
// computed by both around the move (the old owner's was in the log, not yet stored, when it
// died) has the same (series, time): the store keeps one row, never two.
import type { ConsumeOptions, LogHandler, LogSubscription, ObservationLog } from '../log/port.ts'
import { ObservationBus, observedStore } from '../observation-bus.ts'
import type { TimeseriesStore } from '../store/port.ts'
import type { ObservationPath } from './port.ts'

/** The consumer group whose members write the store. */
export const STORE_GROUP = 'lintel-store'

/** The handler of the store group: the store first, then the bus. */
export function storeThenBus(store: Pick<TimeseriesStore, 'append'>, bus: ObservationBus): LogHandler {
  return async (records) => {
    await store.append(records.flatMap((r) => r.observations))
    for (const r of records) bus.publish(r.observations, r.project)
  }
}

export interface ScaledPathOptions {
  store: TimeseriesStore
  log: ObservationLog
  /** Options of the worker's member of the store group (errors: the batch is retried). */
  consume?: ConsumeOptions
}

export function openScaledPath(o: ScaledPathOptions): ObservationPath {
  const bus = new ObservationBus()
  const store = observedStore(o.store, bus)
  const publish = (project: number, batch: Parameters<ObservationLog['publish']>[1]) => o.log.publish(project, batch)
  let member: LogSubscription | undefined
  const owned = new Set<number>()
  return {
    bus, store, reads: o.store,
    ingest: publish,
    outputs: publish,
    startWorker: async (onShare) => {
      member ??= await o.log.consume(STORE_GROUP, storeThenBus(o.store, bus), {
        ...o.consume,
        onPartitions: (change) => {
          for (const p of change.revoked) owned.delete(p)
          for (const p of change.assigned) owned.add(p)
          onShare?.([...owned].sort((a, b) => a - b))
        },
      })
    },
    owns: (projectId) => member !== undefined && owned.has(o.log.partitionOf(projectId)),
    metrics: () => ({}),
    consumerLag: () => member?.lag?.() ?? [],
    drained: async () => {},
    close: async () => {
      await member?.stop()
      await o.log.close()
      await store.close()
    },
  }
}
