// Where ingested observations go, one project at a time. Embedded default: the store
// (through the observation bus). Scaled mode: the observation log (Kafka), from which a
// worker's consumer group writes the store. Resolves only when the observations are durable
// in the store or accepted by the log, so the caller may then acknowledge its client.
import type { Observation } from './store/port.ts'

export type Ingest = (projectId: number, batch: readonly Observation[]) => Promise<void>
