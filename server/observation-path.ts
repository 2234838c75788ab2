// Opens the observation path of the configured mode (engine/observation-path/): the one place
// where the mode forks. Embedded: the SQLite store behind the ingest queue. Scaled: the store
// of the configuration (QuestDB) behind the Kafka log.
import { join } from 'node:path'
import type { Logger } from 'pino'
import type { ObservationLog } from '../engine/log/port.ts'
import { openEmbeddedPath } from '../engine/observation-path/embedded.ts'
import type { ObservationPath } from '../engine/observation-path/port.ts'
import { openScaledPath } from '../engine/observation-path/scaled.ts'
import type { TimeseriesStore } from '../engine/store/port.ts'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'
import type { Config } from './config.ts'
import type { LintelMetrics } from './prometheus.ts'

/** Seams for tests: wrap the opened store (hold or fail writes), bound the ingest queue. */
export interface StartSeams {
  wrapStore?: (store: TimeseriesStore) => TimeseriesStore
  ingestQueue?: { maxPending?: number; maxBatch?: number }
}

async function openStore(config: Config, logger: Logger, metrics?: LintelMetrics): Promise<TimeseriesStore> {
  if (config.store === 'questdb') {
    const { openQuestdbStore } = await import('../engine/store/questdb-store.ts')
    return openQuestdbStore({ url: config.questdb!, table: config.questdbTable, logger, observer: metrics?.storeObserver() })
  }
  return openSqliteStore({ dir: join(config.dataDir, 'timeseries'), logger, observer: metrics?.storeObserver() })
}

async function openLog(config: Config, logger: Logger): Promise<ObservationLog> {
  // node-rdkafka is installed by the scaled set-up only (npm run setup:scaled) and loaded only in this mode.
  const { openKafkaLog } = await import('../engine/log/kafka-log.ts')
  // A dead worker's partitions move after the session time-out: 6 s, Kafka's smallest by default.
  return openKafkaLog({ brokers: config.kafkaBrokers!, topic: config.kafkaTopic, clientId: `lintel-${config.nodeId}`, sessionTimeoutMs: 6_000, onError: (err) => logger.warn({ err }, 'kafka') })
}

/** `metrics`: the operator's metrics, told of the store's commits and compactions and timing its reads. */
export async function openPath(config: Config, logger: Logger, seams: StartSeams, metrics?: LintelMetrics): Promise<ObservationPath> {
  const opened = await openStore(config, logger, metrics)
  const wrapped = seams.wrapStore ? seams.wrapStore(opened) : opened
  const store = metrics ? metrics.timedReads(wrapped) : wrapped
  if (config.log !== 'kafka') return openEmbeddedPath({ store, queue: seams.ingestQueue })
  try {
    const log = await openLog(config, logger)
    return openScaledPath({ store, log, consume: { onError: (err) => logger.error({ err }, 'worker: observation log consumer') } })
  } catch (err) {
    await store.close()
    throw err
  }
}
