// The composition root (DESIGN.md): reads configuration, opens the catalog and the store
// chosen by it, starts the MQTT broker, builds the API and listens. `npm start` runs this.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { Catalog } from '../catalog/index.ts'
import { ObservationBus, observedStore } from '../engine/observation-bus.ts'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'
import { VdpRuntime } from '../engine/vdp/runtime.ts'
import { DatapointResolver } from '../ingest/datapoint-resolver.ts'
import { IngestQueue } from '../ingest/ingest-queue.ts'
import { startBroker } from '../ingest/mqtt/broker.ts'
import { loadTlsMaterial } from '../ingest/mqtt/tls-material.ts'
import { buildApp } from './app.ts'
import { bootstrapIfEmpty } from './bootstrap.ts'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { adminEndpoints } from './registry.ts'

export async function start(config: Config) {
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', '*.password'] })
  const catalog = Catalog.open(config.dataDir, adminEndpoints)
  const boot = bootstrapIfEmpty(catalog, config)
  if (boot?.generatedPassword) {
    // Printed once, on the terminal only: the password is not logged and not stored in clear.
    process.stdout.write(`\nFirst start: created company '${boot.company}' with admin user\n` +
      `  email:    ${boot.email}\n  password: ${boot.generatedPassword}\n` +
      'Keep this password; it is not shown again.\n\n')
  } else if (boot) {
    logger.info({ company: boot.company, email: boot.email }, 'first start: created company and admin user from configuration')
  }
  // Aborting CSV imports spool the upload here, beside the data rather than in a small /tmp.
  const spoolDir = join(config.dataDir, 'spool')
  mkdirSync(spoolDir, { recursive: true })
  // Every write goes through the observed store: once durable, it is published on the bus
  // that virtual datapoints listen to (storage-first).
  const bus = new ObservationBus()
  const store = observedStore(await openSqliteStore({ dir: join(config.dataDir, 'timeseries'), logger }), bus)
  catalog.projects.vdpEnabledByDefault = config.vdpDefaultEnabled
  const vdpRuntime = new VdpRuntime({ catalog, store, bus, log: logger.child({ component: 'vdp' }) })

  const tls = await loadTlsMaterial({ dataDir: config.dataDir, certFile: config.mqtt.certFile, keyFile: config.mqtt.keyFile })
  if (tls.generated) logger.info({ cert: tls.certPath }, 'mqtt: generated a self-signed certificate; clients pass it as their CA file')
  const resolver = new DatapointResolver(catalog)
  const broker = await startBroker({
    catalog, resolver, queue: new IngestQueue(store), log: logger.child({ component: 'mqtt' }),
    listen: { host: config.host, tlsPort: config.mqtt.tlsPort, wsPort: config.mqtt.wsPort, tcpPort: config.mqtt.tcpPort, cert: tls.cert, key: tls.key },
  })

  const app = await buildApp({
    catalog, store, logger, spoolDir,
    tokenTtlSeconds: config.tokenTtlSeconds, uploadLimit: config.uploadLimit, ingestBodyLimit: config.ingestBodyLimit,
    onMqttAccountRevoked: (username) => broker.revoke(username),
    onProjectDeleted: (projectId) => resolver.forgetProject(projectId),
    metrics: () => broker.metrics(),
    vdpRunner: vdpRuntime,
  })
  const address = await app.listen({ host: config.host, port: config.httpPort })
  await vdpRuntime.resume()
  const stop = async () => {
    vdpRuntime.stopAll()
    await app.close()
    await broker.close()
    await store.close()
    catalog.close()
  }
  return { app, broker, catalog, store, vdpRuntime, address, caFile: tls.certPath, stop }
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
  const { ports } = platform.broker
  process.stdout.write(`lintel listening on ${platform.address}\n` +
    `lintel mqtt listening on mqtts://${config.host}:${ports.tls} and wss://${config.host}:${ports.ws}` +
    (ports.tcp === undefined ? '' : ` and (plain, development only) mqtt://${config.host}:${ports.tcp}`) + ` (CA file ${platform.caFile})\n`)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => { platform.stop().then(() => process.exit(0), () => process.exit(1)) })
  }
}
