// The composition root (DESIGN.md): reads configuration and wires the adapters it chooses.
//   embedded default: all roles in one process, SQLite store, in-process observation bus
//   scaled mode: roles in separate processes (LINTEL_ROLES), QuestDB store, Kafka log,
//                Redis behind clustered brokers
// `npm start` runs this file.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import pino, { type Logger } from 'pino'
import { Catalog } from '../catalog/index.ts'
import type { Ingest } from '../engine/ingest.ts'
import type { LogSubscription, ObservationLog } from '../engine/log/port.ts'
import { ObservationBus, observedStore } from '../engine/observation-bus.ts'
import type { TimeseriesStore } from '../engine/store/port.ts'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'
import type { VdpRunner } from '../engine/vdp/runner.ts'
import { VdpRuntime } from '../engine/vdp/runtime.ts'
import { DatapointResolver } from '../ingest/datapoint-resolver.ts'
import { IngestQueue } from '../ingest/ingest-queue.ts'
import { startBroker, type Broker } from '../ingest/mqtt/broker.ts'
import { loadTlsMaterial } from '../ingest/mqtt/tls-material.ts'
import { Documents } from '../engine/blobs/documents.ts'
import { openBlobStore, type BlobStore } from '../engine/blobs/index.ts'
import { buildApp } from './app.ts'
import { bootstrapIfEmpty } from './bootstrap.ts'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { adminEndpoints } from './registry.ts'

async function openStore(config: Config, logger: Logger): Promise<TimeseriesStore> {
  if (config.store === 'questdb') {
    const { openQuestdbStore } = await import('../engine/store/questdb-store.ts')
    return openQuestdbStore({ url: config.questdb!, table: config.questdbTable, logger })
  }
  return openSqliteStore({ dir: join(config.dataDir, 'timeseries'), logger })
}

async function openLog(config: Config, logger: Logger): Promise<ObservationLog | undefined> {
  if (config.log !== 'kafka') return undefined
  // node-rdkafka is an optional dependency, loaded only in this mode.
  const { openKafkaLog } = await import('../engine/log/kafka-log.ts')
  return openKafkaLog({ brokers: config.kafkaBrokers!, topic: config.kafkaTopic, clientId: `lintel-${config.nodeId}`, onError: (err) => logger.warn({ err }, 'kafka') })
}

/** A runner for an API process without the worker role: the worker reconciles from the catalog. */
const catalogOnlyRunner: VdpRunner = { start: async () => {}, stop: () => {}, isRunning: () => false }

export async function start(config: Config) {
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', '*.password'] })
  const roles = config.roles
  const catalog = Catalog.open(config.dataDir, adminEndpoints)
  catalog.projects.vdpEnabledByDefault = config.vdpDefaultEnabled
  const boot = roles.has('api') ? bootstrapIfEmpty(catalog, config) : undefined
  if (boot?.generatedPassword) {
    // Printed once, on the terminal only: the password is not logged and not stored in clear.
    process.stdout.write(`\nFirst start: created company '${boot.company}' with admin user\n` +
      `  email:    ${boot.email}\n  password: ${boot.generatedPassword}\n` +
      'Keep this password; it is not shown again.\n\n')
  } else if (boot) {
    logger.info({ company: boot.company, email: boot.email }, 'first start: created company and admin user from configuration')
  }

  // Storage-first: with the in-process log, every write goes through the observed store and
  // is published on the bus once durable. With Kafka, ingest goes to the log; the worker's
  // consumer groups write the store and feed the bus.
  const bus = new ObservationBus()
  const rawStore = await openStore(config, logger)
  const store = observedStore(rawStore, bus)
  const log = await openLog(config, logger)
  const queue = log ? undefined : new IngestQueue(store)
  const ingest: Ingest = log ? (project, batch) => log.publish(project, batch) : (_project, batch) => queue!.enqueue(batch)
  const closers: (() => Promise<void> | void)[] = []

  let vdpRuntime: VdpRuntime | undefined
  const subscriptions: LogSubscription[] = []
  if (roles.has('worker')) {
    vdpRuntime = new VdpRuntime({ catalog, store: rawStore, ingest: log ? ingest : (_p, batch) => store.append(batch), bus, log: logger.child({ component: 'vdp' }) })
    if (log) {
      // One consumer group writes the store and only then feeds the engine (storage-first:
      // a virtual datapoint never reacts to an observation that is not stored yet).
      subscriptions.push(await log.consume('lintel-store', async (records) => {
        await rawStore.append(records.flatMap((r) => r.observations))
        for (const r of records) bus.publish(r.observations)
      }, { onError: (err) => logger.error({ err }, 'worker: store write failed; the batch is retried') }))
    }
  }

  let broker: Broker | undefined
  let caFile: string | undefined
  const resolver = new DatapointResolver(catalog)
  if (roles.has('broker')) {
    const tls = await loadTlsMaterial({ dataDir: config.dataDir, certFile: config.mqtt.certFile, keyFile: config.mqtt.keyFile })
    if (tls.generated) logger.info({ cert: tls.certPath }, 'mqtt: generated a self-signed certificate; clients pass it as their CA file')
    caFile = tls.certPath
    broker = await startBroker({
      catalog, resolver, ingest, ingestMetrics: () => queue?.metrics() ?? {}, log: logger.child({ component: 'mqtt' }),
      redisUrl: config.redisUrl, nodeId: config.nodeId,
      listen: { host: config.host, tlsPort: config.mqtt.tlsPort, wsPort: config.mqtt.wsPort, tcpPort: config.mqtt.tcpPort, cert: tls.cert, key: tls.key },
    })
  }

  let address: string | undefined
  let app: Awaited<ReturnType<typeof buildApp>> | undefined
  let blobs: BlobStore | undefined
  let documents: Documents | undefined
  if (roles.has('api') && config.blobs) {
    blobs = await openBlobStore(config.blobs)
    documents = new Documents(catalog.files, blobs, { log: logger.child({ component: 'documents' }) })
    // Objects of spaces whose project or company was deleted (the operator's CLI deletes
    // companies without the storage): removed at start and every 10 minutes.
    const sweep = () => { documents!.sweep().catch((err) => logger.warn({ err }, 'documents: sweep failed')) }
    sweep()
    const timer = setInterval(sweep, 10 * 60_000)
    timer.unref()
    closers.push(() => clearInterval(timer))
  }
  if (roles.has('api')) {
    const spoolDir = join(config.dataDir, 'spool')
    mkdirSync(spoolDir, { recursive: true })
    app = await buildApp({
      catalog, store, ingest, logger, spoolDir,
      tokenTtlSeconds: config.tokenTtlSeconds, uploadLimit: config.uploadLimit, ingestBodyLimit: config.ingestBodyLimit,
      onMqttAccountRevoked: (username) => broker?.revoke(username),
      onProjectDeleted: (projectId) => resolver.forgetProject(projectId),
      metrics: () => ({ ...(broker?.metrics() ?? {}), ...(queue?.metrics() ?? {}) }),
      vdpRunner: vdpRuntime ?? catalogOnlyRunner,
      documents,
    })
    address = await app.listen({ host: config.host, port: config.httpPort })
  }

  if (vdpRuntime) {
    await vdpRuntime.resume()
    // Without the API in this process, the catalog is how run/stop requests arrive.
    if (!roles.has('api')) {
      const timer = setInterval(() => { vdpRuntime!.reconcile().catch((err) => logger.error({ err }, 'vdp: reconcile failed')) }, 1000)
      timer.unref()
      closers.push(() => clearInterval(timer))
    }
  }

  const stop = async () => {
    for (const c of closers) await c()
    vdpRuntime?.stopAll()
    await app?.close()
    await blobs?.close()
    await broker?.close()
    for (const s of subscriptions) await s.stop()
    await log?.close()
    await store.close()
    catalog.close()
  }
  const storageUrl = blobs && 'listenerUrl' in blobs ? String(blobs.listenerUrl) : undefined
  return { app, broker, catalog, store, vdpRuntime, documents, address, caFile, storageUrl, stop }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let config: Config
  try {
    config = loadConfig()
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(err.message + '\n')
    process.exit(2)
  }
  const platform = await start(config)
  const lines = [`lintel roles: ${[...config.roles].join(',')} (store ${config.store}, log ${config.log})`]
  if (platform.address) lines.push(`lintel listening on ${platform.address}`)
  if (platform.broker) {
    const { ports } = platform.broker
    lines.push(`lintel mqtt listening on mqtts://${config.host}:${ports.tls} and wss://${config.host}:${ports.ws}` +
      (ports.tcp === undefined ? '' : ` and (plain, development only) mqtt://${config.host}:${ports.tcp}`) + ` (CA file ${platform.caFile})`)
  }
  if (platform.storageUrl) lines.push(`lintel document storage listening on ${platform.storageUrl}`)
  process.stdout.write(lines.join('\n') + '\n')
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => { platform.stop().then(() => process.exit(0), () => process.exit(1)) })
  }
}
