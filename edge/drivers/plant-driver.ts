// What the configured agent (edge/plant/) needs from a field-bus driver beyond the driver
// port (edge/driver.ts): its name, connection state and counters for the health datapoints,
// and the points it owns with the tags published through META.
import type { Driver } from '../driver.ts'

export interface PointInfo {
  id: string
  /** META tags (key → text), e.g. unit, description, writable, object type */
  tags: Record<string, string>
}

export interface DriverStats {
  connected: boolean
  /** values read since the start */
  pointsPolled: number
  /** failed requests (reads, subscriptions) since the start */
  pollErrors: number
}

export interface PlantDriver extends Driver {
  readonly name: string
  start(): Promise<void>
  points(): PointInfo[]
  stats(): DriverStats
}
