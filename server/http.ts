// The HTTP API as a part of the composition root's list (server/runtimes.ts): built from what
// the parts before it started (it does not listen itself; tests use it through inject()),
// then listening.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { buildApp } from '../api/app.ts'
import type { Running } from '../engine/running.ts'
import type { VdpRunner } from '../engine/vdp/runner.ts'
import { busFeed, type LiveFeed } from '../engine/live/feed.ts'
import { redisFeed } from '../engine/live/redis-channel.ts'
import { listenProblem, StartupError } from './preflight.ts'
import { need, type Wiring } from './wiring.ts'

/** A runner for an API process without the worker role: the worker reconciles from the catalog. */
const catalogOnlyRunner: VdpRunner = { start: async () => {}, stop: () => {}, isRunning: () => false }

/**
 * Where the live subscriptions hear of stored observations: this process's bus when it runs
 * the bus of every project (embedded), else the workers' channels on Redis (scaled mode,
 * docs/scaled-mode.md); without Redis the scaled API serves no live subscriptions.
 */
function liveFeedOf(w: Wiring): LiveFeed | undefined {
  const { config, logger } = w
  if (config.log !== 'kafka') return busFeed(need(w.path, 'observation path').bus, w.alerts)
  if (config.redisUrl === undefined) {
    logger.warn('live subscriptions need LINTEL_REDIS_URL in scaled mode: GET /v2/live closes at once')
    return undefined
  }
  return redisFeed(config.redisUrl, (err) => logger.warn({ err }, 'live: Redis channel'))
}

/** The HTTP API: built (it does not listen itself), then listening; on stop it answers new requests 503 and finishes those in flight. */
export async function startHttp(w: Wiring): Promise<Running> {
  const { config, logger, broker, projectRuntimes } = w
  const path = need(w.path, 'observation path')
  const resolver = need(w.resolver, 'catalog')
  const spoolDir = join(config.dataDir, 'spool')
  mkdirSync(spoolDir, { recursive: true })
  const app = await buildApp({
    catalog: need(w.catalog, 'catalog'), store: path.store, ingest: w.metrics.counting(path.ingest, 'http'), importIngest: w.metrics.counting(path.ingest, 'import'), logger, spoolDir, library: w.library, analytics: need(w.analytics, 'analytics'),
    tokenTtlSeconds: config.tokenTtlSeconds, uploadLimit: config.uploadLimit, ingestBodyLimit: config.ingestBodyLimit,
    headersTimeoutMs: config.httpTimeouts.headersMs, bodyTimeoutMs: config.httpTimeouts.bodyMs, importMinRate: config.uploads,
    onMqttAccountRevoked: (username) => broker?.revoke(username),
    onProjectDeleting: (projectId) => projectRuntimes.stopProject(projectId),
    onProjectDeleted: (projectId) => resolver.forgetProject(projectId),
    // A company sees the broker's counters of its own projects only (issue 9, item 9).
    metrics: (projectIds) => broker?.metricsOf(projectIds) ?? {},
    vdpRunner: w.vdp ?? catalogOnlyRunner,
    documents: w.documents,
    exportsOwnAll: config.catalog === 'sqlite',
    alertRunner: w.alerts,
    webhookPolicy: w.webhookPolicy, maxAlertsPerDatapoint: config.alertLimits.perDatapoint, emailEnabled: config.smtp !== undefined,
    setpoints: w.setpoints,
    controls: w.controls,
    liveFeed: liveFeedOf(w), liveLimits: config.liveLimits,
  })
  w.app = app
  try {
    w.address = await app.listen({ host: config.host, port: config.httpPort })
  } catch (err) {
    await app.close()
    // Taken between the preflight check and now: the same one line.
    if ((err as NodeJS.ErrnoException).code?.startsWith('EADDR')) throw new StartupError(listenProblem('LINTEL_HTTP_PORT', config.host, config.httpPort, err as NodeJS.ErrnoException))
    throw err
  }
  return {
    stop: async () => {
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
    },
  }
}
