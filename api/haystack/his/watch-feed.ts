// The watches of an API process hear stored observations from the live feed (engine/live/
// feed.ts), the same one the live WebSocket hub hears: the observation bus in the embedded
// mode, the workers' per-project Redis channels in the scaled one (subscribed while a watch of
// the project is open; countedFeed shares them with the hub).
import type { Clock } from '../../../core/clock/clock.ts'
import type { LiveFeed } from '../../../engine/live/feed.ts'
import { WatchRegistry, type WatchLimits } from '../watches.ts'

export function startWatches(feed: LiveFeed, clock: Clock, limits?: Partial<WatchLimits>): { registry: WatchRegistry; stop(): void } {
  const registry = new WatchRegistry(clock, limits, feed)
  const offObservations = feed.observations((batch) => registry.observe(batch))
  const offInterrupted = feed.interrupted(() => registry.interrupted())
  return {
    registry,
    stop: () => { offObservations(); offInterrupted(); registry.stop() },
  }
}
