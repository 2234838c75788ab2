// Where the live subscriptions (api/live/) hear of stored observations and alert events in
// this process (issue 33). The port has two adapters:
//   busFeed   (embedded, and any process that runs the observation bus for every project):
//             the bus's batches and the alert runtime's stored events, as they happen;
//   redisFeed (scaled: an API process runs no bus; redis-channel.ts): the channels the
//             workers publish on after their store write, one per project, subscribed only
//             for the projects the process's sockets watch.
// Both carry only what is stored (the bus's rule), in the order it was stored per project.
import type { AlertEvent } from '../../catalog/alerts.ts'
import type { ObservationBus } from '../observation-bus.ts'
import type { Observation } from '../store/port.ts'

export type ObservationsListener = (batch: readonly Observation[], project?: number) => void
export type AlertEventsListener = (events: readonly AlertEvent[]) => void

/** What produces stored alert events (engine/alerts/runtime.ts). */
export interface AlertEventSource { subscribeEvents(fn: AlertEventsListener): () => void }

export interface LiveFeed {
  /** Batches of stored observations (`project` when the feed knows it); returns the unsubscribe. */
  observations(fn: ObservationsListener): () => void
  alerts(fn: AlertEventsListener): () => void
  /** The hub watches the project from now on: resolves once its observations arrive here. */
  watch(projectId: number): Promise<void>
  unwatch(projectId: number): void
  /** Told when messages may have been lost (scaled: the channel's connection dropped): subscribers resume. */
  interrupted(fn: () => void): () => void
  close(): Promise<void>
}

/** The feed of a process running the observation bus of every project (the embedded default). */
export function busFeed(bus: ObservationBus, alerts?: AlertEventSource): LiveFeed {
  return {
    observations: (fn) => bus.batches(fn),
    alerts: (fn) => alerts?.subscribeEvents(fn) ?? (() => {}),
    watch: async () => {},
    unwatch: () => {},
    interrupted: () => () => {},
    close: async () => {},
  }
}
