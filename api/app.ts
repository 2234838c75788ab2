// build(deps) returns the Fastify app, not listening (STYLE.md: only the start file listens).
import { WebhookAddressPolicy } from '../engine/notify/address-policy.ts'
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import swagger from '@fastify/swagger'
import { Ajv } from 'ajv'
import sjson from 'secure-json-parse'
import type { Logger } from 'pino'
import type { Catalog } from '../catalog/index.ts'
import { InvalidInputError, UnsupportedMediaTypeError } from '../core/errors.ts'
import { CheckedObservations } from '../ingest/json-observations.ts'
import { observationsFromJsonText } from '../ingest/json-text.ts'
import { underflowingNumber } from '../ingest/json-underflow.ts'
import type { Ingest } from '../engine/ingest-port.ts'
import type { TimeseriesStore } from '../engine/store/port.ts'
import type { RouteContext } from './route-context.ts'
import { installAccessHooks } from './access-hooks.ts'
import { Authenticator } from './authenticate.ts'
import { LoginThrottle, type LoginThrottleOptions } from '../catalog/login-throttle.ts'
import { ExistsProbeLimit, type ExistsProbeOptions } from './exists-probe-limit.ts'
import { frameworkError, installErrorHandling } from './error-handler.ts'
import { documentRoute, swaggerOptions } from './openapi.ts'
import { headersLimit, installBodyTimeLimit, type MinRate } from './request-time-limits.ts'
import { DEFAULT_UPLOAD_LIMITS } from '../engine/blobs/upload-gate.ts'
import { authRoutes } from './routes/auth.ts'
import { companyRoutes } from './routes/company.ts'
import { companyRoleRoutes } from './routes/company-roles.ts'
import { metaRoutes } from './routes/meta.ts'
import { projectRoleRoutes } from './routes/project-roles.ts'
import { projectRoutes } from './routes/projects.ts'
import { importRoutes } from './routes/import.ts'
import { mqttAccountRoutes } from './routes/mqtt-accounts.ts'
import { vdpRoutes } from './routes/virtual-datapoints.ts'
import { alertRoutes, type AlertRunner } from './routes/alerts.ts'
import { acknowledgeAlert, clearAlert } from '../engine/alerts/people.ts'
import { setpointRoutes } from './routes/setpoints.ts'
import { componentRoutes } from './routes/components.ts'
import { componentInProjectRoutes } from './routes/components-in-project.ts'
import { analyticsRoutes } from './routes/analytics.ts'
import { AnalyticsService } from '../engine/analytics/service.ts'
import { loadComponentLibrary, type ComponentLibrary } from '../engine/analytics/library.ts'
import type { SetpointService } from '../engine/setpoints/service.ts'
import type { ControlsAppService } from '../engine/controls/service.ts'
import { controlsAppRoutes } from './routes/controls-apps.ts'
import { scheduleRoutes } from './routes/schedules.ts'
import type { VdpRunner } from '../engine/vdp/runner.ts'
import type { Documents } from '../engine/blobs/documents.ts'
import { documentRoutes } from './routes/documents.ts'
import { exportRoutes } from './routes/exports.ts'
import { consoleRoutes } from './routes/console.ts'
import { timeseriesRoutes } from './routes/timeseries.ts'
import { dataLifecycleRoutes } from './routes/data-lifecycle.ts'
import { userRoutes } from './routes/users.ts'
import websocket from '@fastify/websocket'
import type { LiveFeed } from '../engine/live/feed.ts'
import { LIVE_SUBPROTOCOL, MAX_CLIENT_FRAME_BYTES } from '../protocol/live-messages.ts'
import { LiveHub, type LiveLimits } from './live/hub.ts'
import { liveRoutes } from './routes/live.ts'
import { userViewRoutes } from './routes/user-views.ts'
import { haystackRoutes } from './haystack/routes.ts'
import { startWatches } from './haystack/his/watch-feed.ts'
import { countedFeed } from '../engine/live/counted-feed.ts'
import { systemClock } from '../core/clock/clock.ts'

export interface AppDeps {
  catalog: Catalog
  /** Reads (and deletes) of time series. */
  store: TimeseriesStore
  /** Where ingested observations go; default: the store's append. */
  ingest?: Ingest
  /** Where CSV imports go; default `ingest`. */
  importIngest?: Ingest
  logger?: Logger | false
  /** Lifetime of bearer tokens issued by POST /v2/auth/token, seconds. */
  tokenTtlSeconds?: number
  /** Largest JSON body accepted on admin routes, bytes. */
  bodyLimit?: number
  /** Largest JSON body of POST .../timeseries, bytes. */
  ingestBodyLimit?: number
  /** Largest CSV upload, bytes. */
  uploadLimit?: number
  /** Time to send a request's headers, ms (LINTEL_HTTP_HEADERS_TIMEOUT_S; default 10 s); api/request-time-limits.ts. */
  headersTimeoutMs?: number
  /** Time to send a body the API reads whole, ms after the headers (LINTEL_HTTP_BODY_TIMEOUT_S; default 60 s, 0 off). */
  bodyTimeoutMs?: number
  /** Slowest CSV import body (LINTEL_UPLOAD_MIN_RATE_KB over LINTEL_UPLOAD_RATE_WINDOW_S; default 16 KiB/s over 30 s). */
  importMinRate?: MinRate
  /** Where aborting imports spool the upload (default: the OS temporary directory). */
  spoolDir?: string
  /** Called when an MQTT account is deleted or its credentials change: end its connections. */
  onMqttAccountRevoked?: (username: string) => void
  /** Counters of the ingest path (the broker's metrics) of the given projects, served at GET /v2/system/metrics. */
  metrics?: (projectIds: readonly number[]) => Record<string, number>
  /** Runs virtual datapoints (engine); without it their routes are not served. */
  vdpRunner?: VdpRunner
  /** Runs alerts (engine/alerts/runtime.ts); without it alerts are stored but not evaluated in this process. */
  alertRunner?: AlertRunner
  /** Whether the operator configured an SMTP server: alerts may notify by e-mail. */
  emailEnabled?: boolean
  /** Which webhook addresses alerts may name (default: no internal address). */
  webhookPolicy?: WebhookAddressPolicy
  /** Alerts one datapoint may have (LINTEL_ALERTS_PER_DATAPOINT; default 100). */
  maxAlertsPerDatapoint?: number
  /** Runs setpoint operations (engine/setpoints); without it writes are refused with 503 (no broker in this process). */
  setpoints?: SetpointService
  /** Runs controls apps on the edge (engine/controls); without it their changes are refused with 503 (no broker in this process). */
  controls?: ControlsAppService
  /** Called after a project and its datapoints were deleted (ingest caches forget them). */
  onProjectDeleted?: (projectId: number) => void
  /** Called before a project is deleted: everything running for it stops (engine/project-runtimes.ts). */
  onProjectDeleting?: (projectId: number) => Promise<void> | void
  /**
   * Throttling of failed HTTP logins (Basic, bearer, current_password), or its limits.
   * Defaults (catalog/login-throttle.ts): within 5 minutes, 5 failures per (address, account),
   * 20 per address and 10 per account from addresses it never logged in from; then 429 with
   * Retry-After until the window ends. Attempts count before the password check.
   */
  loginThrottle?: LoginThrottle | LoginThrottleOptions
  /** Budget of "already exists" answers per company (api/exists-probe-limit.ts; default 20 per hour). */
  existsProbes?: ExistsProbeOptions
  /** The component library (engine/analytics/library.ts); default: data/components, loaded now. */
  library?: ComponentLibrary
  /** Runs analysis instances (engine/analytics/service.ts); default: one over this catalog and store. */
  analytics?: AnalyticsService
  /** The company and project file spaces (engine/blobs); without it their routes are not served. */
  documents?: Documents
  /** This process owns every export job (embedded mode, api/routes/exports.ts). */
  exportsOwnAll?: boolean
  /** Each started export job's end (tests, benchmarks). */
  onExportStarted?: (id: number, done: Promise<void>) => void
  /** Stored observations and alert events of this process (engine/live/feed.ts); without it GET /v2/live closes at once (1013). */
  liveFeed?: LiveFeed
  /** Bounds of the live subscriptions' sockets (api/live/hub.ts). */
  liveLimits?: Partial<LiveLimits>
  /** Serve the web console at `/` (console/; default true). */
  console?: boolean
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger || undefined,
    logger: deps.logger ? undefined : false,
    bodyLimit: deps.bodyLimit ?? 1024 * 1024,
    // Two validators: path and query strings are coerced to numbers, bodies are not, so a
    // string where a number belongs is an error rather than silently converted.
    schemaController: undefined,
    // Bad URLs and over-long path parameters answer the failure envelope (400), not Fastify's own body.
    frameworkErrors: frameworkError,
    // Slow headers are cut by Node (408, connection closed), slow bodies by installBodyTimeLimit.
    http: headersLimit(deps.headersTimeoutMs),
  } as FastifyServerOptions)
  const coercing = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, strict: false })
  const strict = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: false })
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema) as never)

  app.removeContentTypeParser('text/plain') // JSON only: anything else answers 415
  // No body is decompressed here: a coded body (gzip, deflate, br) is refused as such, 415,
  // before any of it is read (a gzip JSON body answered 400 "malformed JSON", issue 29).
  app.addHook('onRequest', async (req) => {
    const coding = req.headers['content-encoding']
    const hasBody = (req.headers['content-length'] ?? '0') !== '0' || req.headers['transfer-encoding'] !== undefined
    if (hasBody && coding !== undefined && coding.trim().toLowerCase() !== 'identity') {
      throw new UnsupportedMediaTypeError(`Content-Encoding '${coding.slice(0, 40)}' is not supported: send the body uncompressed`)
    }
  })
  installBodyTimeLimit(app, deps.bodyTimeoutMs)
  app.addContentTypeParser('application/json', { parseAs: 'string' }, async (req: FastifyRequest, body: string | Buffer) => {
    const text = body as string
    if (text === '') return {}
    // The JSON ingest's usual shape is read straight from the text (ingest/json-text.ts);
    // anything else is parsed here as every other body, and validated by the route.
    if (req.routeOptions.config.observationsBody) {
      const rows = await observationsFromJsonText(text)
      if (rows) return new CheckedObservations(rows)
    }
    const tiny = underflowingNumber(text)
    if (tiny !== undefined) throw new InvalidInputError(`The number ${tiny} is too small for a double: it is not zero but would be read as 0`)
    try {
      return sjson.parse(text, { protoAction: 'error', constructorAction: 'error' }) as unknown
    } catch (err) {
      throw new InvalidInputError(`Malformed JSON body: ${(err as Error).message}`, 'MALFORMED_JSON')
    }
  })
  // A PUT with no body at all means "change nothing" (spec: an empty body is accepted).
  app.addHook('preValidation', async (req) => {
    if (req.body === undefined && (req.method === 'PUT' || req.method === 'POST')) req.body = {}
  })

  // OpenAPI generated from the route schemas, with each route's endpoint number and failures (api/openapi.ts).
  app.addHook('onRoute', documentRoute)
  await app.register(swagger, swaggerOptions)

  // Before the access hooks: its onRequest hook marks upgrade requests, so that one refused by
  // them (401, 403, 404) gets its socket closed after the answer. Browsers offer
  // `lintel.v1, bearer.<token>`: the server selects lintel.v1 (api/access-hooks.ts reads the token).
  await app.register(websocket, { options: { maxPayload: MAX_CLIENT_FRAME_BYTES, handleProtocols: (offered: Set<string>) => (offered.has(LIVE_SUBPROTOCOL) ? LIVE_SUBPROTOCOL : false) } })
  installErrorHandling(app)
  const throttle = deps.loginThrottle instanceof LoginThrottle ? deps.loginThrottle : new LoginThrottle(deps.loginThrottle)
  const auth = new Authenticator(deps.catalog, { throttle, probes: new ExistsProbeLimit(deps.existsProbes) })
  app.addHook('onClose', async () => auth.close())
  installAccessHooks(app, deps.catalog, auth)
  const ingest: Ingest = deps.ingest ?? ((_project, batch) => deps.store.append(batch))
  // A deleted project's file rows and quota go with it (catalog cascade); its objects here.
  const documents = deps.documents
  const onProjectDeleted = documents === undefined ? deps.onProjectDeleted : (projectId: number) => {
    deps.onProjectDeleted?.(projectId)
    documents.dropProjectSpace(projectId).catch((err) => app.log.warn({ err, projectId }, 'documents: objects of a deleted project not removed; the sweep retries'))
  }
  const ctx: RouteContext = { catalog: deps.catalog, auth, store: deps.store, ingest, importIngest: deps.importIngest, tokenTtlSeconds: deps.tokenTtlSeconds ?? 3600, onProjectDeleted, onProjectDeleting: deps.onProjectDeleting, metrics: deps.metrics }
  await app.register(metaRoutes, ctx)
  await app.register(authRoutes, ctx)
  await app.register(userRoutes, ctx)
  await app.register(companyRoutes, ctx)
  await app.register(companyRoleRoutes, ctx)
  await app.register(projectRoutes, ctx)
  await app.register(projectRoleRoutes, ctx)
  await app.register(mqttAccountRoutes, { ...ctx, onRevoked: deps.onMqttAccountRevoked })
  if (deps.vdpRunner) await app.register(vdpRoutes, { ...ctx, runner: deps.vdpRunner })
  await app.register(alertRoutes, { ...ctx, runner: deps.alertRunner ?? {
    start: async () => {}, stop: async () => {}, disable: async () => {},
    // No alert runtime in this process (an API of the scaled mode): the catalog alone.
    acknowledge: (alert, who) => acknowledgeAlert({ catalog: deps.catalog }, alert, who), clear: (alert, who) => clearAlert({ catalog: deps.catalog }, alert, who),
  }, webhookPolicy: deps.webhookPolicy ?? new WebhookAddressPolicy(), maxAlertsPerDatapoint: deps.maxAlertsPerDatapoint, emailEnabled: deps.emailEnabled })
  await app.register(setpointRoutes, { ...ctx, setpoints: deps.setpoints })
  const library = deps.library ?? loadComponentLibrary()
  await app.register(componentRoutes, { ...ctx, library })
  await app.register(componentInProjectRoutes, { ...ctx, library })
  const analytics = deps.analytics ?? new AnalyticsService({ catalog: deps.catalog, store: deps.store, library })
  await app.register(analyticsRoutes, { ...ctx, library, analytics })
  await app.register(controlsAppRoutes, { ...ctx, library, controls: deps.controls })
  await app.register(scheduleRoutes, { ...ctx, library, controls: deps.controls })
  await app.register(timeseriesRoutes, { ...ctx, ingestBodyLimit: deps.ingestBodyLimit ?? 64 * 1024 * 1024 })
  await app.register(dataLifecycleRoutes, { ...ctx, alertRunner: deps.alertRunner })
  await app.register(importRoutes, { ...ctx, uploadLimit: deps.uploadLimit ?? 4 * 1024 ** 3, spoolDir: deps.spoolDir, minRate: deps.importMinRate ?? DEFAULT_UPLOAD_LIMITS })
  if (documents) {
    await app.register(documentRoutes, { ...ctx, documents, kind: 'company' })
    await app.register(documentRoutes, { ...ctx, documents, kind: 'project' })
    await app.register(exportRoutes, { ...ctx, documents, exportsOwnAll: deps.exportsOwnAll, onExportStarted: deps.onExportStarted })
  }
  // One feed for the hub and the Haystack watches: a project stays subscribed while either needs it.
  const liveFeed = deps.liveFeed && countedFeed(deps.liveFeed)
  const hub = liveFeed && new LiveHub({ catalog: deps.catalog, store: deps.store, feed: liveFeed, limits: deps.liveLimits, onError: (err) => app.log.warn({ err }, 'live subscriptions') })
  const watches = liveFeed && startWatches(liveFeed, systemClock)
  if (watches) app.addHook('onClose', async () => watches.stop())
  await app.register(liveRoutes, { ...ctx, hub })
  await app.register(userViewRoutes, ctx)
  await app.register(haystackRoutes, { ...ctx, services: { setpoints: deps.setpoints, liveFeed, liveHub: hub, watches: watches?.registry } })
  if (hub) app.decorate('liveHub', hub)
  if (deps.console !== false) await app.register(consoleRoutes)
  return app
}
