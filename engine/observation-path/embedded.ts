// The embedded observation path: one process, no log. Ingest goes through the bounded ingest
// queue (group commit, back-pressure) into the store, and each durable batch is published on
// the in-process bus right after its senders were answered (publishingAfterAnswer); the
// runtimes' outputs are appended through the observed store, which publishes them before the
// append resolves, so they reach the bus and can feed other virtual datapoints.
// There is no observation log here: engine/log/memory-log.ts is the log port's test double
// and reference adapter, not part of this path.
import { ObservationBus, observedStore, publishingAfterAnswer } from '../observation-bus.ts'
import type { TimeseriesStore } from '../store/port.ts'
import { IngestQueue } from './ingest-queue.ts'
import type { ObservationPath } from './port.ts'

export interface EmbeddedPathOptions {
  store: TimeseriesStore
  /** Bounds of the ingest queue (tests lower them). */
  queue?: { maxPending?: number; maxBatch?: number }
}

export function openEmbeddedPath(o: EmbeddedPathOptions): ObservationPath {
  const bus = new ObservationBus()
  const store = observedStore(o.store, bus)
  const queue = new IngestQueue(publishingAfterAnswer(o.store, bus), o.queue)
  return {
    bus, store, reads: o.store,
    ingest: (_project, batch) => queue.enqueue(batch),
    outputs: (_project, batch) => store.append(batch),
    startWorker: async () => {},
    owns: () => true,
    metrics: () => ({ ...queue.metrics() }),
    consumerLag: () => [],
    drained: async () => {
      while (queue.metrics().pending > 0) await new Promise((resolve) => setTimeout(resolve, 5))
    },
    close: () => store.close(),
  }
}
