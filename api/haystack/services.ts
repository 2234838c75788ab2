// What the Haystack ops may use beyond the route context: the services buildApp was given.
// Absent ones (an API without a broker has no setpoints) make their ops answer an error grid.
import type { SetpointService } from '../../engine/setpoints/service.ts'
import type { LiveFeed } from '../../engine/live/feed.ts'
import type { LiveHub } from '../live/hub.ts'

export interface HaystackServices {
  setpoints?: SetpointService
  liveFeed?: LiveFeed
  liveHub?: LiveHub
}
