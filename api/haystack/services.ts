// What the Haystack ops may use beyond the route context: the services buildApp was given.
// Absent ones (an API without a broker has no setpoints) make their ops answer an error grid.
import type { SetpointService } from '../../engine/setpoints/service.ts'
import type { LiveFeed } from '../../engine/live/feed.ts'
import type { LiveHub } from '../live/hub.ts'
import type { Clock } from '../../core/clock/clock.ts'
import type { WatchRegistry } from './watches.ts'

export interface HaystackServices {
  setpoints?: SetpointService
  liveFeed?: LiveFeed
  liveHub?: LiveHub
  /** The time of hisRead's today/yesterday, watch leases and pointWrite durations (default the system clock). */
  clock?: Clock
  /** The watches of this process (watchSub/watchPoll/watchUnsub), fed by the live feed. */
  watches?: WatchRegistry
}
