// The embedded observation path: one process, no log. Ingest goes through the bounded ingest
// queue (group commit, back-pressure) into the store; the observed store publishes each
// durable batch on the in-process bus; the runtimes' outputs are appended through the same
// observed store, so they reach the bus and can feed other virtual datapoints.
// There is no observation log here: engine/log/memory-log.ts is the log port's test double
// and reference adapter, not part of this path.
import { ObservationBus, observedStore } from '../observation-bus.ts'
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
  const queue = new IngestQueue(store, o.queue)
  return {
    bus, store, reads: o.store,
    ingest: (_project, batch) => queue.enqueue(batch),
    outputs: (_project, batch) => store.append(batch),
    startWorker: async () => {},
    owns: () => true,
    metrics: () => ({ ...queue.metrics() }),
    drained: async () => {
      while (queue.metrics().pending > 0) await new Promise((resolve) => setTimeout(resolve, 5))
    },
    close: () => store.close(),
  }
}
