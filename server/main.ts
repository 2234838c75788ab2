// The composition root (DESIGN.md): reads configuration and starts the parts of the process
// it chooses. The parts are one list (server/runtimes.ts), each run by the roles named beside
// it (LINTEL_ROLES; the embedded default runs all), started in list order and stopped in the
// reverse order (server/compose.ts). The mode is chosen once, as the observation path
// (server/observation-path.ts):
//   embedded default: all roles in one process, SQLite store, ingest queue → store → bus
//   scaled mode: roles in separate processes, QuestDB store, Kafka log whose store group (on
//                the workers) writes the store and feeds the bus, Redis behind clustered brokers
// `npm start` runs this file (as the server process itself: `exec` in package.json, so a
// signal to the npm pid reaches it). Before anything is created it takes the data directory's
// lock and checks the listen address and ports (issue 15 items 4, 5); on SIGTERM/SIGINT it
// shuts down gracefully: stops accepting, finishes requests in flight, stores everything the
// ingest queue acknowledged or holds, then closes the stores (item 6).
import pino from 'pino'
import { loadComponentLibrary } from '../engine/analytics/library.ts'
import { WebhookAddressPolicy } from '../engine/notify/address-policy.ts'
import { LintelMetrics } from './prometheus.ts'
import { ProjectRuntimes } from '../engine/project-runtimes.ts'
import { startParts } from './compose.ts'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { lockDataDir } from './data-dir-lock.ts'
import type { StartSeams } from './observation-path.ts'
import { checkHost, checkPortsFree, StartupError } from './preflight.ts'
import { PARTS, type Wiring } from './runtimes.ts'

export type { StartSeams } from './observation-path.ts'

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
  // The document storage listener (API role, fs documents) has its own host; its default port
  // (the HTTP port + 1) is easy to find taken, so the line says where the number came from.
  const blobs = config.blobs
  if (roles.has('api') && blobs?.kind === 'fs') {
    await checkPortsFree(blobs.host, { 'LINTEL_BLOBS_PORT, default the HTTP port + 1': blobs.port })
  }
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
  // The component library first: a broken file stops the start with one line, before anything opens.
  const library = loadComponentLibrary(config.componentsDir)
  const w: Wiring = { config, logger, seams, library, projectRuntimes: new ProjectRuntimes(), webhookPolicy: new WebhookAddressPolicy(config.webhookAllow), metrics: new LintelMetrics() }
  const parts = await startParts(PARTS, config.roles, w, logger)
  logger.debug({ parts: parts.names }, 'started')
  const stop = async () => {
    await parts.stop()
    // Not after a failed stop: the stores may still be open until the process exits (a
    // successor takes the lock over once this process is gone).
    lock?.release()
  }
  const { app, broker, catalog, vdp: vdpRuntime, alerts, setpoints, controls, projectRuntimes, documents, address, caFile, storageUrl, metricsAddress } = w
  return { app, broker, catalog: catalog!, store: w.path!.store, vdpRuntime, alerts, setpoints, controls, projectRuntimes, documents, address, caFile, storageUrl, metricsAddress, stop }
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
