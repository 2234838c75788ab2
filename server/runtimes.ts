// The composition root's list (issue 30 item 5; DESIGN.md "server/"): every part of a Lintel
// process in start order, each run by the roles named beside it (LINTEL_ROLES; the embedded
// default runs all three). server/compose.ts starts them in this order and stops them in the
// reverse order, so the list is also the shutdown: first stop accepting (HTTP, then the
// broker), then store what the ingest queue accepted, then stop the runtimes, then close the
// observation path (the store commits pending appends) and the catalog.
// No domain logic here: each entry opens or starts a module and puts what others need on the
// wiring `w`.
import type { Logger } from 'pino'
import { adminEndpoints } from '../api/registry.ts'
import { RUN_STATE } from '../catalog/changes.ts'
import { openCatalog, type Catalog } from '../catalog/index.ts'
import { startAlerts } from '../engine/alerts/index.ts'
import { AnalyticsService, startAnalyticsSchedule } from '../engine/analytics/service.ts'
import { Documents } from '../engine/blobs/documents.ts'
import { openBlobStore } from '../engine/blobs/index.ts'
import { startSetpoints } from '../engine/setpoints/index.ts'
import { startControlsApps } from '../engine/controls/index.ts'
import { appPublisher, linkAppReports } from '../ingest/mqtt/controls-app-link.ts'
import { forwardAppReports, listenAppReports } from '../ingest/mqtt/controls-app-relay.ts'
import { startVirtualDatapoints } from '../engine/vdp/index.ts'
import { startRetention } from '../engine/retention/index.ts'
import { startLiveRelay } from '../engine/live/redis-channel.ts'
import { pollingChanges, WorkerControl, type RunStateChanges } from '../engine/worker.ts'
import { DatapointResolver } from '../ingest/datapoint-resolver.ts'
import { startBroker } from '../ingest/mqtt/broker.ts'
import { linkSetpointAnswers, setpointPublisher } from '../ingest/mqtt/setpoint-link.ts'
import { clusterPublisher, forwardSetpointAnswers, listenSetpointAnswers } from '../ingest/mqtt/setpoint-relay.ts'
import { loadTlsMaterial } from '../ingest/mqtt/tls-material.ts'
import { bootstrapIfEmpty, reportFirstStart } from './bootstrap.ts'
import type { Part } from './compose.ts'
import type { Config } from './config.ts'
import { startHttp } from './http.ts'
import { startMetricsSnapshots } from './metrics-snapshot.ts'
import { startMetricsListener } from './prometheus-listener.ts'
import { openPath } from './observation-path.ts'
import { need, type Wiring } from './wiring.ts'

export type { Wiring } from './wiring.ts'

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


const ALL = ['api', 'broker', 'worker'] as const

export const PARTS: readonly Part<Wiring>[] = [
  {
    name: 'catalog', roles: ALL,
    start: async (w) => {
      const { config, logger } = w
      const catalog = await openCatalog({ ...config, dataDir: config.catalogDir }, adminEndpoints, { vdpEnabledByDefault: config.vdpDefaultEnabled, onError: (err) => logger.warn({ err }, 'catalog connection') })
      w.catalog = catalog
      w.resolver = new DatapointResolver(catalog)
      try {
        if (config.roles.has('api')) reportFirstStart(await bootstrapIfEmpty(catalog, config), config, logger)
      } catch (err) {
        await catalog.close()
        throw err
      }
      return { stop: () => catalog.close() }
    },
  },
  {
    // Storage-first: the path makes every observation durable before its bus carries it.
    name: 'observation path', roles: ALL,
    start: async (w) => {
      const path = await openPath(w.config, w.logger, w.seams, w.metrics)
      w.path = path
      return { stop: () => path.close() }
    },
  },
  {
    // The whole process, for the operator tool (`npx lintel metrics`). Early in the list so that
    // its last snapshot, on stop, is taken after the intake closed and the queue drained; the
    // broker's counters join from the next snapshot after it started (every 5 s).
    name: 'metrics snapshots', roles: ALL,
    start: async (w) => {
      const path = need(w.path, 'observation path')
      const stop = startMetricsSnapshots(w.config.dataDir, () => ({ ...(w.broker?.metrics() ?? {}), ...path.metrics() }), (err) => w.logger.warn({ err }, 'metrics: snapshot not written'))
      return { stop: async () => stop() }
    },
  },
  {
    // The operator's Prometheus listener (LINTEL_METRICS_PORT; off by default): the parts'
    // counters are read at each scrape, so those started later join as they start.
    name: 'metrics listener', roles: ALL, when: (w) => w.config.metricsListener !== undefined,
    start: async (w) => {
      const path = need(w.path, 'observation path')
      w.metrics.readFrom({ path: () => path.metrics(), consumerLag: () => path.consumerLag(), broker: () => w.broker?.metrics(), alerts: () => w.alerts?.metrics() })
      const listener = await startMetricsListener(w.config.metricsListener!, w.metrics.registry, (err) => w.logger.warn({ err }, 'metrics: scrape failed'))
      w.metricsAddress = listener.address
      w.logger.info({ address: `${listener.address}/metrics` }, 'metrics: Prometheus listener')
      return { stop: listener.stop }
    },
  },
  {
    // Before the virtual datapoints: they stop first, so alerts on their outputs see them all.
    name: 'alerts', roles: ['worker'],
    start: async (w) => {
      const path = need(w.path, 'observation path')
      const started = await startAlerts({
        catalog: need(w.catalog, 'catalog'), store: path.reads, bus: path.bus, log: w.logger.child({ component: 'alerts' }),
        owns: (projectId) => path.owns(projectId), webhookPolicy: w.webhookPolicy, maxOutboxPerCompany: w.config.alertLimits.outboxPerCompany,
        notifyIntervalMs: w.config.alertLimits.notifyIntervalMs, smtp: w.config.smtp,
      })
      w.alerts = started.runtime
      // Every runtime that works for a project stops it before the project is deleted (issue 9
      // item 7). A process without the worker role runs neither alerts nor virtual datapoints:
      // the worker's reconcile() stops what the catalog lost.
      w.projectRuntimes.register('alerts', started.runtime)
      return started
    },
  },
  {
    name: 'virtual datapoints', roles: ['worker'],
    start: async (w) => {
      const path = need(w.path, 'observation path')
      const started = await startVirtualDatapoints({
        catalog: need(w.catalog, 'catalog'), store: path.reads, ingest: w.metrics.counting(path.outputs, 'vdp'), bus: path.bus, log: w.logger.child({ component: 'vdp' }),
        owns: (projectId) => path.owns(projectId), latenessUs: w.config.vdpLatenessSeconds * 1_000_000,
      })
      w.vdp = started.runtime
      w.projectRuntimes.register('virtual datapoints', started.runtime)
      return started
    },
  },
  {
    // Retention sweeps (issue 34 item 2): in small steps beside ingest, by the worker owning the project.
    name: 'retention', roles: ['worker'],
    start: (w) => {
      const path = need(w.path, 'observation path')
      return startRetention({
        catalog: need(w.catalog, 'catalog'), store: path.reads, owns: (projectId) => path.owns(projectId),
        log: w.logger.child({ component: 'retention' }), observe: (rows, seconds) => w.metrics.retentionSwept(rows, seconds),
      })
    },
  },
  {
    // Scaled mode: API processes run no bus; the worker relays what its bus carries (stored,
    // with alert events) on Redis, one channel per project (docs/scaled-mode.md "Live subscriptions").
    name: 'live relay', roles: ['worker'], when: (w) => w.config.log === 'kafka' && w.config.redisUrl !== undefined,
    start: async (w) => {
      const catalog = need(w.catalog, 'catalog')
      const relay = startLiveRelay({
        redisUrl: w.config.redisUrl!, bus: need(w.path, 'observation path').bus, alerts: w.alerts,
        projectOfAlert: async (id) => (await catalog.alerts.find(id))?.project_id, onError: (err) => w.logger.warn({ err }, 'live relay'),
      })
      return { stop: () => relay.close() }
    },
  },
  {
    // Manual runs are the API's; the weekly schedule is the worker's (next part).
    name: 'analytics', roles: ALL,
    start: async (w) => {
      const path = need(w.path, 'observation path')
      w.analytics = new AnalyticsService({ catalog: need(w.catalog, 'catalog'), store: path.reads, library: w.library, worker: w.config.nodeId || `worker-${process.pid}`, maxResults: w.config.analysisMaxResults, log: w.logger.child({ component: 'analytics' }) })
      w.projectRuntimes.register('analytics', w.analytics)
    },
  },
  {
    // Several workers share the schedule through the catalog's ledger: each week runs once.
    name: 'analytics schedule', roles: ['worker'],
    start: (w) => startAnalyticsSchedule(need(w.analytics, 'analytics')),
  },
  {
    // Started before the intake, so it stops after it: what the queue accepted is stored
    // before the runtimes and the stores stop.
    name: 'ingest queue drained', roles: ALL,
    start: async (w) => {
      const path = need(w.path, 'observation path')
      return { stop: () => path.drained() }
    },
  },
  {
    // On stop it ends its connections; a QoS 1 publish not yet acknowledged is sent again by its client.
    name: 'MQTT broker', roles: ['broker'],
    start: async (w) => {
      const { config, logger } = w
      const path = need(w.path, 'observation path')
      const tls = await loadTlsMaterial({ dataDir: config.dataDir, certFile: config.mqtt.certFile, keyFile: config.mqtt.keyFile })
      if (tls.generated) logger.info({ cert: tls.certPath }, 'mqtt: generated a self-signed certificate; clients pass it as their CA file')
      w.caFile = tls.certPath
      const broker = await startBroker({
        catalog: need(w.catalog, 'catalog'), resolver: need(w.resolver, 'catalog'), ingest: w.metrics.counting(path.ingest, 'mqtt'), ingestMetrics: () => path.metrics(), log: logger.child({ component: 'mqtt' }),
        redisUrl: config.redisUrl, nodeId: config.nodeId, maxPacketBytes: config.mqtt.maxPacketBytes, preAuth: config.mqtt.preAuth,
        listen: { host: config.host, tlsPort: config.mqtt.tlsPort, wsPort: config.mqtt.wsPort, tcpPort: config.mqtt.tcpPort, cert: tls.cert, key: tls.key },
      })
      w.broker = broker
      return { stop: () => broker.close() }
    },
  },
  {
    // Scaled mode (Redis): broker nodes forward the answers they validated on an internal
    // Redis channel to the API processes (ingest/mqtt/setpoint-relay.ts).
    name: 'setpoint answers forwarded', roles: ['broker'], when: (w) => w.broker !== undefined && w.config.redisUrl !== undefined,
    start: async (w) => {
      const forward = forwardSetpointAnswers(need(w.broker, 'MQTT broker').controls, w.config.redisUrl!, (err) => w.logger.warn({ err }, 'setpoints: answer not forwarded'))
      return { stop: async () => forward.close() }
    },
  },
  {
    // The same for the reports of controls apps (APPSTATE, APPLOG, APPSYNC; ingest/mqtt/controls-app-relay.ts).
    name: 'controls app reports forwarded', roles: ['broker'], when: (w) => w.broker !== undefined && w.config.redisUrl !== undefined,
    start: async (w) => {
      const forward = forwardAppReports(need(w.broker, 'MQTT broker').controls, w.config.redisUrl!, (err) => w.logger.warn({ err }, 'controls apps: report not forwarded'))
      return { stop: async () => forward.close() }
    },
  },
  {
    // An API process without the broker role publishes through a publish-only member of the broker cluster.
    name: 'setpoint cluster publisher', roles: ['api'], when: (w) => w.broker === undefined && w.config.redisUrl !== undefined,
    start: async (w) => {
      const remote = await clusterPublisher(w.config.redisUrl!, (err) => w.logger.warn({ err }, 'setpoints: cluster publisher'))
      w.clusterPublisher = remote
      return { stop: () => remote.close() }
    },
  },
  {
    // With the broker in this process (the embedded default) the service publishes NEWSPT
    // through it and hears the edge's answers from it; otherwise through the cluster and its
    // answer channel. Without either, setpoints answer 503.
    name: 'setpoints', roles: ['api'], when: (w) => (w.broker ?? w.clusterPublisher) !== undefined,
    start: async (w) => {
      const { config, logger, broker } = w
      const catalog = need(w.catalog, 'catalog')
      const onAnswerError = (err: unknown) => logger.error({ err }, 'setpoints: answer not recorded')
      const started = await startSetpoints({
        setpoints: catalog.setpoints, timeoutMs: config.setpointTimeoutMs, log: logger.child({ component: 'setpoints' }),
        publish: setpointPublisher(need(broker ?? w.clusterPublisher, 'setpoint publisher'), catalog),
        answers: async (service) => {
          if (broker) {
            const linked = linkSetpointAnswers(broker, service, onAnswerError)
            return { stop: async () => linked.unsubscribe() }
          }
          const listening = await listenSetpointAnswers(config.redisUrl!, service, onAnswerError)
          return { stop: async () => listening.close() }
        },
      })
      w.setpoints = started.service
      w.projectRuntimes.register('setpoints', started.service)
      return started
    },
  },
  {
    // Controls apps go to the edge as setpoints do (APPDEF through the broker or the cluster
    // publisher) and its reports come back the same ways; pending deployments are sent again
    // at start. Without either, changes of apps answer 503.
    name: 'controls apps', roles: ['api'], when: (w) => (w.broker ?? w.clusterPublisher) !== undefined,
    start: async (w) => {
      const { config, logger, broker } = w
      const catalog = need(w.catalog, 'catalog')
      const log = logger.child({ component: 'controls-apps' })
      const started = await startControlsApps({
        apps: catalog.controlsApps, projects: catalog.projects, log, deployTimeoutMs: config.controlsDeployTimeoutMs,
        publish: appPublisher(need(broker ?? w.clusterPublisher, 'controls app publisher'), catalog),
        reports: async (service) => {
          if (broker) {
            const linked = linkAppReports(broker, service, log)
            return { stop: async () => linked.unsubscribe() }
          }
          const listening = await listenAppReports(config.redisUrl!, service, log)
          return { stop: async () => listening.close() }
        },
      })
      w.controls = started.service
      w.projectRuntimes.register('controls apps', started.service)
      return started
    },
  },
  {
    name: 'documents', roles: ['api'], when: (w) => w.config.blobs !== undefined,
    start: async (w) => {
      const blobs = await openBlobStore(w.config.blobs!)
      const documents = new Documents(need(w.catalog, 'catalog').files, blobs, { log: w.logger.child({ component: 'documents' }), uploads: w.config.uploads })
      w.documents = documents
      if ('listenerUrl' in blobs) w.storageUrl = String(blobs.listenerUrl)
      // Objects of spaces whose project or company was deleted (the operator's CLI deletes
      // companies without the storage): removed at start and every 10 minutes.
      const cancelSweep = documents.sweepEvery(10 * 60_000)
      return { stop: async () => { cancelSweep(); await blobs.close() } }
    },
  },
  { name: 'HTTP API', roles: ['api'], start: startHttp },
  {
    // Run/stop made by an API in another process arrives by notification; the worker's share
    // of projects changes as the log's partitions move between workers.
    name: 'worker share', roles: ['worker'],
    start: async (w) => {
      const { config, logger } = w
      const path = need(w.path, 'observation path')
      const catalog = need(w.catalog, 'catalog')
      const control = new WorkerControl({
        runtimes: [need(w.vdp, 'virtual datapoints'), need(w.alerts, 'alerts')],
        changes: config.roles.has('api') && config.log !== 'kafka' ? undefined : runStateChanges(config, catalog, logger),
        onError: (err) => logger.error({ err }, 'worker: reconcile failed'),
      })
      try {
        await path.startWorker((partitions) => {
          logger.info({ partitions }, 'worker: runs the projects of these log partitions')
          control.shareChanged()
        })
      } catch (err) {
        await control.close()
        throw err
      }
      return { stop: () => control.close() }
    },
  },
]
