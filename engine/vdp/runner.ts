// What the API needs from the engine to run virtual datapoints (the runtime implements it).
import type { VdpRecord } from '../../catalog/virtual-datapoints.ts'

export interface VdpRunner {
  /** Starts the pipeline; rejects when it cannot start (the API records "Start failed"). */
  start(v: VdpRecord): Promise<void>
  stop(id: number): void
  isRunning(id: number): boolean
}
