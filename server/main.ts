// The composition root (DESIGN.md): reads configuration and wires the adapters it chooses.
// The mode is chosen once, as the observation path (engine/observation-path/):
//   embedded default: all roles in one process, SQLite store, ingest queue → store → bus
//   scaled mode: roles in separate processes (LINTEL_ROLES), QuestDB store, Kafka log whose
//                store group (on the workers) writes the store and feeds the bus, Redis
//                behind clustered brokers
// Everything after that choice is wired against the path, by role only.
// `npm start` runs this file (as the server process itself: `exec` in package.json, so a
// signal to the npm pid reaches it). Before anything is created it takes the data directory's
// lock and checks the listen address and ports (issue 15 items 4, 5); on SIGTERM/SIGINT it
// shuts down gracefully: stops accepting, finishes requests in flight, stores everything the
// ingest queue acknowledged or holds, then closes the stores (item 6).
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import pino, { type Logger } from 'pino'
import { RUN_STATE } from '../catalog/changes.ts'
import { openCatalog, type Catalog } from '../catalog/index.ts'
import type { ObservationLog } from '../engine/log/port.ts'
import { openEmbeddedPath } from '../engine/observation-path/embedded.ts'
import type { ObservationPath } from '../engine/observation-path/port.ts'
import { openScaledPath } from '../engine/observation-path/scaled.ts'
import { ProjectRuntimes } from '../engine/project-runtimes.ts'
import type { TimeseriesStore } from '../engine/store/port.ts'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'
import type { VdpRunner } from '../engine/vdp/runner.ts'
import { VdpRuntime } from '../engine/vdp/runtime.ts'
import { WebhookAddressPolicy } from '../engine/notify/address-policy.ts'
import { pollingChanges, WorkerControl, type RunStateChanges } from '../engine/worker.ts'
import { openAlerts } from '../engine/alerts/index.ts'
import { SetpointService } from '../engine/setpoints/service.ts'
import { loadComponentLibrary } from '../engine/analytics/library.ts'
import { AnalyticsService } from '../engine/analytics/service.ts'
import { DatapointResolver } from '../ingest/datapoint-resolver.ts'
import { startBroker, type Broker } from '../ingest/mqtt/broker.ts'
import { loadTlsMaterial } from '../ingest/mqtt/tls-material.ts'
import { Documents } from '../engine/blobs/documents.ts'
import { openBlobStore, type BlobStore } from '../engine/blobs/index.ts'
import { linkSetpointAnswers, setpointPublisher } from '../ingest/mqtt/setpoint-link.ts'
import { clusterPublisher, forwardSetpointAnswers, listenSetpointAnswers } from '../ingest/mqtt/setpoint-relay.ts'
import { buildApp } from '../api/app.ts'
import { bootstrapIfEmpty } from './bootstrap.ts'
import { startMetricsSnapshots } from './metrics-snapshot.ts'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { lockDataDir } from './data-dir-lock.ts'
import { checkHost, checkPortsFree, listenProblem, StartupError } from './preflight.ts'
import { adminEndpoints } from '../api/registry.ts'

async function openStore(config: Config, logger: Logger): Promise<TimeseriesStore> {
  if (config.store === 'questdb') {
    const { openQuestdbStore } = await import('../engine/store/questdb-store.ts')
    return openQuestdbStore({ url: config.questdb!, table: config.questdbTable, logger })
  }
  return openSqliteStore({ dir: join(config.dataDir, 'timeseries'), logger })
}

async function openLog(config: Config, logger: Logger): Promise<ObservationLog> {
  // node-rdkafka is installed by the scaled set-up only (npm run setup:scaled) and loaded only in this mode.
  const { openKafkaLog } = await import('../engine/log/kafka-log.ts')
  // A dead worker's partitions move after the session time-out: 6 s, Kafka's smallest by default.
  return openKafkaLog({ brokers: config.kafkaBrokers!, topic: config.kafkaTopic, clientId: `lintel-${config.nodeId}`, sessionTimeoutMs: 6_000, onError: (err) => logger.warn({ err }, 'kafka') })
}

/** The observation path of the configured mode: the one place where the mode forks. */
async function openPath(config: Config, logger: Logger, seams: StartSeams): Promise<ObservationPath> {
  const opened = await openStore(config, logger)
  const store = seams.wrapStore ? seams.wrapStore(opened) : opened
  if (config.log !== 'kafka') return openEmbeddedPath({ store, queue: seams.ingestQueue })
  try {
    const log = await openLog(config, logger)
    return openScaledPath({ store, log, consume: { onError: (err) => logger.error({ err }, 'worker: store write failed; the batch is retried') } })
  } catch (err) {
    await store.close()
    throw err
  }
}

/**
 * Where a worker hears of run-state changes made by an API in another process: the catalog's
 * change notification (PostgreSQL LISTEN/NOTIFY, topic run-state). The SQLite catalog cannot
 * notify another process: there the worker asks the catalog every second.
 */
function runStateChanges(config: Config, catalog: Catalog, logger: Logger): RunStateChanges {
  if (config.catalog !== 'postgres') {
    logger.info('worker: run-state changes by asking the catalog every second (SQLite catalog)')
    return pollingChanges(1000)
  }
  logger.info('worker: run-state changes by catalog notification (LISTEN/NOTIFY)')
  // One info line per notification: rare (a run/stop, an enable/disable), and the proof
  // an operator or the end-to-end test can read that a change arrived without polling.
  return (listener) => catalog.changes.subscribe(RUN_STATE, () => { logger.info('worker: run-state change notified'); listener() })
}

/** A runner for an API process without the worker role: the worker reconciles from the catalog. */
const catalogOnlyRunner: VdpRunner = { start: async () => {}, stop: () => {}, isRunning: () => false }

/** Seams for tests: wrap the opened store (hold or fail writes), bound the ingest queue. */
export interface StartSeams {
  wrapStore?: (store: TimeseriesStore) => TimeseriesStore
  ingestQueue?: { maxPending?: number; maxBatch?: number }
}

/** The embedded store or the in-process log live in one process: one server per data directory. */
const needsLock = (config: Config) => config.store === 'embedded' || config.log === 'memory'

/** Checks that need nothing created: the listen address resolves and the fixed ports are free. */
async function preflight(config: Config): Promise<void> {
  const { roles, mqtt } = config
  if (!roles.has('api') && !roles.has('broker')) return
  await checkHost(config.host)
  await checkPortsFree(config.host, {
    LINTEL_HTTP_PORT: roles.has('api') ? config.httpPort : undefined,
    LINTEL_MQTT_TLS_PORT: roles.has('broker') ? mqtt.tlsPort : undefined,
    LINTEL_MQTT_WS_PORT: roles.has('broker') ? mqtt.wsPort : undefined,
    LINTEL_MQTT_TCP_PORT: roles.has('broker') ? mqtt.tcpPort : undefined,
  })
}

export async function start(config: Config, seams: StartSeams = {}) {
  const lock = needsLock(config) ? lockDataDir(config.dataDir) : undefined
  try {
    await preflight(config)
    return await startLocked(config, lock, seams)
  } catch (err) {
    lock?.release()
    throw err
  }
}

async function startLocked(config: Config, lock: { release: () => void } | undefined, seams: StartSeams) {
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', '*.password'] })
  const roles = config.roles
  // The component library first: a broken file stops the start with one line, before anything opens.
  const library = loadComponentLibrary(config.componentsDir)
  const catalog = await openCatalog({ ...config, dataDir: config.catalogDir }, adminEndpoints, { vdpEnabledByDefault: config.vdpDefaultEnabled, onError: (err) => logger.warn({ err }, 'catalog connection') })
  const boot = roles.has('api') ? await bootstrapIfEmpty(catalog, config) : undefined
  if (roles.has('api') && !boot && config.bootstrap) {
    // Issue 15 item 3: a later start with the first-start variables must not ignore them silently.
    logger.warn('the installation already has companies: LINTEL_COMPANY_NAME, LINTEL_ADMIN_EMAIL and LINTEL_ADMIN_PASSWORD are ignored ' +
      '(they apply to the first start of an empty data directory only; to start over, stop the server and remove the data directory)')
  }
  if (boot?.generatedPassword) {
    // Printed once, on the terminal only: the password is not logged and not stored in clear.
    process.stdout.write(`\nFirst start: created company '${boot.company}' with admin user\n` +
      `  email:    ${boot.email}\n  password: ${boot.generatedPassword}\n` +
      'Keep this password; it is not shown again.\n\n')
  } else if (boot) {
    logger.info({ company: boot.company, email: boot.email }, 'first start: created company and admin user from configuration')
  }

  // Storage-first: the path makes every observation durable before its bus carries it.
  const path = await openPath(config, logger, seams)
  const { bus, ingest } = path
  const store = path.store
  const closers: (() => Promise<void> | void)[] = []

  // The worker runs the projects of its share of the path (scaled: its log partitions).
  const owns = (projectId: number) => path.owns(projectId)
  const vdpRuntime = roles.has('worker')
    ? new VdpRuntime({ catalog, store: path.reads, ingest: path.outputs, bus, log: logger.child({ component: 'vdp' }), owns, latenessUs: config.vdpLatenessSeconds * 1_000_000 })
    : undefined

  // Every runtime that works for a project stops it before the project is deleted (item 7 of
  // issue 9): virtual datapoints, alerts, analytics' weekly runs and setpoints register here.
  // A process without the worker role runs none of the first three: the worker's reconcile()
  // stops what the catalog lost.
  const projectRuntimes = new ProjectRuntimes()
  if (vdpRuntime) projectRuntimes.register('virtual datapoints', vdpRuntime)
  const webhookPolicy = new WebhookAddressPolicy(config.webhookAllow)
  const alerts = vdpRuntime && openAlerts({ catalog, store: path.reads, bus, log: logger.child({ component: 'alerts' }), owns, webhookPolicy, maxOutboxPerCompany: config.alertLimits.outboxPerCompany, notifyIntervalMs: config.alertLimits.notifyIntervalMs })
  if (alerts) projectRuntimes.register('alerts', alerts)

  // Analysis instances: manual runs in the API; the weekly schedule in the worker (several
  // workers share it through the catalog's ledger: each week runs once).
  const analytics = new AnalyticsService({ catalog, store: path.reads, library, worker: config.nodeId || `worker-${process.pid}`, maxResults: config.analysisMaxResults, log: logger.child({ component: 'analytics' }) })
  projectRuntimes.register('analytics', analytics)
  if (roles.has('worker')) {
    analytics.start()
    closers.push(() => analytics.stop())
  }

  let broker: Broker | undefined
  let caFile: string | undefined
  const resolver = new DatapointResolver(catalog)
  if (roles.has('broker')) {
    const tls = await loadTlsMaterial({ dataDir: config.dataDir, certFile: config.mqtt.certFile, keyFile: config.mqtt.keyFile })
    if (tls.generated) logger.info({ cert: tls.certPath }, 'mqtt: generated a self-signed certificate; clients pass it as their CA file')
    caFile = tls.certPath
    broker = await startBroker({
      catalog, resolver, ingest, ingestMetrics: () => path.metrics(), log: logger.child({ component: 'mqtt' }),
      redisUrl: config.redisUrl, nodeId: config.nodeId, maxPacketBytes: config.mqtt.maxPacketBytes, preAuth: config.mqtt.preAuth,
      listen: { host: config.host, tlsPort: config.mqtt.tlsPort, wsPort: config.mqtt.wsPort, tcpPort: config.mqtt.tcpPort, cert: tls.cert, key: tls.key },
    })
  }

  // Setpoints: with the broker in this process (the embedded default) the service publishes
  // NEWSPT through it and hears the edge's answers from it. Scaled mode (Redis): broker nodes
  // forward the answers they validated on an internal Redis channel, and an API process
  // without the broker role publishes through a publish-only member of the broker cluster
  // (ingest/mqtt/setpoint-relay.ts). Without either, setpoints answer 503.
  if (broker && config.redisUrl) {
    const forward = forwardSetpointAnswers(broker.controls, config.redisUrl, (err) => logger.warn({ err }, 'setpoints: answer not forwarded'))
    closers.push(() => forward.close())
  }
  let setpoints: SetpointService | undefined
  const onAnswerError = (err: unknown) => logger.error({ err }, 'setpoints: answer not recorded')
  const remote = !broker && roles.has('api') && config.redisUrl
    ? await clusterPublisher(config.redisUrl, (err) => logger.warn({ err }, 'setpoints: cluster publisher'))
    : undefined
  if (remote) closers.push(() => remote.close())
  const publisher = broker ?? remote
  if (publisher && roles.has('api')) {
    setpoints = new SetpointService({
      setpoints: catalog.setpoints, timeoutMs: config.setpointTimeoutMs, log: logger.child({ component: 'setpoints' }),
      publish: setpointPublisher(publisher, catalog),
    })
    const s = setpoints
    if (broker) linkSetpointAnswers(broker, s, onAnswerError)
    else {
      const listening = await listenSetpointAnswers(config.redisUrl!, s, onAnswerError)
      closers.push(() => listening.close())
    }
    projectRuntimes.register('setpoints', setpoints)
    await setpoints.resume()
    closers.push(() => s.stopAll())
  }

  let address: string | undefined
  let app: Awaited<ReturnType<typeof buildApp>> | undefined
  let blobs: BlobStore | undefined
  let documents: Documents | undefined
  if (roles.has('api') && config.blobs) {
    blobs = await openBlobStore(config.blobs)
    documents = new Documents(catalog.files, blobs, { log: logger.child({ component: 'documents' }), uploads: config.uploads })
    // Objects of spaces whose project or company was deleted (the operator's CLI deletes
    // companies without the storage): removed at start and every 10 minutes.
    closers.push(documents.sweepEvery(10 * 60_000))
  }
  if (roles.has('api')) {
    const spoolDir = join(config.dataDir, 'spool')
    mkdirSync(spoolDir, { recursive: true })
    app = await buildApp({
      catalog, store, ingest, logger, spoolDir, library, analytics,
      tokenTtlSeconds: config.tokenTtlSeconds, uploadLimit: config.uploadLimit, ingestBodyLimit: config.ingestBodyLimit,
      headersTimeoutMs: config.httpTimeouts.headersMs, bodyTimeoutMs: config.httpTimeouts.bodyMs, importMinRate: config.uploads,
      onMqttAccountRevoked: (username) => broker?.revoke(username),
      onProjectDeleting: (projectId) => projectRuntimes.stopProject(projectId),
      onProjectDeleted: (projectId) => resolver.forgetProject(projectId),
      // A company sees the broker's counters of its own projects only (issue 9, item 9).
      metrics: (projectIds) => broker?.metricsOf(projectIds) ?? {},
      vdpRunner: vdpRuntime ?? catalogOnlyRunner,
      documents,
      alertRunner: alerts,
      webhookPolicy, maxAlertsPerDatapoint: config.alertLimits.perDatapoint,
      setpoints,
    })
    try {
      address = await app.listen({ host: config.host, port: config.httpPort })
    } catch (err) {
      // Taken between the preflight check and now: the same one line.
      if ((err as NodeJS.ErrnoException).code?.startsWith('EADDR')) throw new StartupError(listenProblem('LINTEL_HTTP_PORT', config.host, config.httpPort, err as NodeJS.ErrnoException))
      throw err
    }
  }

  await alerts?.resume()
  if (vdpRuntime && alerts) {
    await vdpRuntime.resume()
    // Run/stop made by an API in another process arrives by notification; the worker's
    // share of projects changes as the log's partitions move between workers.
    const control = new WorkerControl({
      runtimes: [vdpRuntime, alerts],
      changes: roles.has('api') && config.log !== 'kafka' ? undefined : runStateChanges(config, catalog, logger),
      onError: (err) => logger.error({ err }, 'worker: reconcile failed'),
    })
    closers.push(() => control.close())
    await path.startWorker((partitions) => {
      logger.info({ partitions }, 'worker: runs the projects of these log partitions')
      control.shareChanged()
    })
  }

  // The whole process, for the operator tool (`npx lintel metrics`).
  const processMetrics = () => ({ ...(broker?.metrics() ?? {}), ...path.metrics() })
  closers.push(startMetricsSnapshots(config.dataDir, processMetrics, (err) => logger.warn({ err }, 'metrics: snapshot not written')))

  // Graceful: stop accepting first (HTTP answers new requests 503 and finishes those in
  // flight; the broker ends its connections, and a QoS 1 publish not yet acknowledged is sent
  // again by its client), then store what the ingest queue holds, then stop the engine and
  // close the stores (the store commits pending appends before it closes).
  const stop = async () => {
    logger.debug('shutdown: closing the HTTP server')
    if (app) {
      // Keep-alive connections that fall idle are closed at once (on Node 24 a busy client's
      // connection otherwise stays open until the client ends it); connections still open
      // after 5 s are cut (their requests were not acknowledged, so nothing acknowledged is lost).
      const server = app.server
      const reap = setInterval(() => server.closeIdleConnections(), 50)
      const cut = setTimeout(() => server.closeAllConnections(), 5000)
      try {
        await app.close()
      } finally {
        clearInterval(reap)
        clearTimeout(cut)
      }
    }
    logger.debug('shutdown: closing the MQTT broker')
    await broker?.close()
    logger.debug('shutdown: draining the ingest queue')
    await path.drained()
    logger.debug('shutdown: closing the engine and the stores')
    for (const c of closers) await c()
    vdpRuntime?.stopAll()
    await blobs?.close()
    await alerts?.close()
    await path.close()
    await catalog.close()
    lock?.release()
  }
  const storageUrl = blobs && 'listenerUrl' in blobs ? String(blobs.listenerUrl) : undefined
  return { app, broker, catalog, store, vdpRuntime, alerts, setpoints, projectRuntimes, documents, address, caFile, storageUrl, stop }
}

/** One line for a failed start: our own problems by their message, others with their code. */
function startFailure(err: unknown): string {
  const e = err as NodeJS.ErrnoException
  const first = String(e?.message ?? err).split('\n')[0]
  return err instanceof StartupError || !e?.code || first.includes(e.code) ? first : `${e.code}: ${first}`
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
  let platform: Awaited<ReturnType<typeof start>>
  try {
    platform = await start(config)
  } catch (err) {
    // One line, exit 2, no stack trace (issue 15 item 5); LINTEL_LOG_LEVEL=debug shows the stack.
    process.stderr.write(`lintel: cannot start: ${startFailure(err)}\n`)
    if (config.logLevel === 'debug' || config.logLevel === 'trace') process.stderr.write(`${(err as Error).stack}\n`)
    process.exit(2)
  }
  const lines = [`lintel roles: ${[...config.roles].join(',')} (store ${config.store}, log ${config.log})`]
  if (platform.address) lines.push(`lintel listening on ${platform.address}`)
  if (platform.broker) {
    const { ports } = platform.broker
    lines.push(`lintel mqtt listening on mqtts://${config.host}:${ports.tls} and wss://${config.host}:${ports.ws}` +
      (ports.tcp === undefined ? '' : ` and (plain, development only) mqtt://${config.host}:${ports.tcp}`) + ` (CA file ${platform.caFile})`)
  }
  if (platform.storageUrl) lines.push(`lintel document storage listening on ${platform.storageUrl}`)
  process.stdout.write(lines.join('\n') + '\n')
  let stopping = false
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) {
        process.stderr.write(`lintel: ${signal} again: exiting without waiting for the shutdown to finish\n`)
        process.exit(1)
      }
      stopping = true
      const began = Date.now()
      const limit = setTimeout(() => {
        process.stderr.write('lintel: shutdown did not finish within 30 s: exiting\n')
        process.exit(1)
      }, 30_000)
      limit.unref()
      platform.stop().then(() => {
        process.stdout.write(`lintel stopped on ${signal} in ${Date.now() - began} ms: stopped accepting, finished requests in flight, stored all accepted observations\n`)
        process.exit(0)
      }, (err) => {
        process.stderr.write(`lintel: shutdown on ${signal} failed: ${startFailure(err)}\n`)
        process.exit(1)
      })
    })
  }
}
