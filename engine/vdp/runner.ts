// What the API needs from the engine to run virtual datapoints (the runtime implements it).
import type { VdpRecord } from '../../catalog/virtual-datapoints.ts'
import type { RangeReplayResult } from './range-replay.ts'

export interface VdpRunner {
  /** Starts the pipeline; rejects when it cannot start (the API records "Start failed"). */
  start(v: VdpRecord): Promise<void>
  stop(id: number): void
  isRunning(id: number): boolean
  /** Recomputes [start, end) from the stored inputs (runtime.ts); absent where no pipelines run (an API-only process). */
  replay?(v: VdpRecord, start: number, end: number, progress?: (inputs: number) => void): Promise<RangeReplayResult>
}
