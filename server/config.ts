// Configuration from environment variables, or from a JSON file named by LINTEL_CONFIG whose
// keys are the same variable names (the environment wins over the file). Validated at start:
// every wrong value is reported by name, with what was expected and what was given.
import { parseWebhookAllow } from '../engine/notify/address-policy.ts'
import { readFileSync } from 'node:fs'
import type { BlobConfig } from '../engine/blobs/index.ts'
import { readBlobsConfig } from './blobs-config.ts'
import type { UploadLimits } from '../engine/blobs/upload-gate.ts'
import { readUploadLimits } from './uploads-config.ts'
import { readAlertLimits, type AlertLimits } from './alerts-config.ts'
import type { SmtpSettings } from '../engine/notify/email.ts'
import { readSmtpConfig } from './smtp-config.ts'
import { readMetricsListener, type MetricsListener } from './metrics-config.ts'

export type Role = 'api' | 'broker' | 'worker'
export const ROLES: readonly Role[] = ['api', 'broker', 'worker']

export interface Config {
  /** What this process does (LINTEL_ROLES); the embedded default runs all three. */
  roles: ReadonlySet<Role>
  /** Time-series store: `embedded` (SQLite in the data directory) or `questdb`. */
  store: 'embedded' | 'questdb'
  /** Observation path: `memory` (in-process: ingest queue → store → bus, no log; engine/observation-path/embedded.ts) or `kafka` (the log). */
  log: 'memory' | 'kafka'
  /** QuestDB, e.g. http://127.0.0.1:9000 (LINTEL_QUESTDB). */
  questdb?: string
  /** Table of the observations in QuestDB (LINTEL_QUESTDB_TABLE, default obs). */
  questdbTable: string
  /** Kafka bootstrap servers, e.g. 127.0.0.1:9092 (LINTEL_KAFKA_BROKERS). */
  kafkaBrokers?: string
  /** Topic of the observation log (LINTEL_KAFKA_TOPIC, default lintel.observations). */
  kafkaTopic: string
  /** Metadata catalog (LINTEL_CATALOG): `sqlite` (catalog.db in the data directory) or `postgres`. */
  catalog: 'sqlite' | 'postgres'
  /** The PostgreSQL catalog, e.g. postgres://lintel@db.example:5432/lintel (LINTEL_POSTGRES_URL). */
  postgresUrl?: string
  /** Redis shared by clustered broker nodes, e.g. redis://127.0.0.1:6379 (LINTEL_REDIS_URL). */
  redisUrl?: string
  /** This node's id in a broker cluster (LINTEL_NODE_ID). */
  nodeId: string
  dataDir: string
  /**
   * Directory of the SQLite catalog (LINTEL_CATALOG_DIR, default the data directory). Scaled
   * processes on one machine without the PostgreSQL catalog point it at one directory, so
   * that their data directories stay their own.
   */
  catalogDir: string
  host: string
  httpPort: number
  logLevel: string
  tokenTtlSeconds: number
  /** Live subscriptions (api/live/hub.ts): send queue per socket (LINTEL_LIVE_QUEUE_KB, 1024) and resume bound per datapoint (LINTEL_LIVE_MAX_FILL, 100,000). */
  liveLimits: { maxQueueBytes: number; maxFill: number }
  /** How long an acknowledged setpoint waits for the edge device before it fails, ms (LINTEL_SETPOINT_TIMEOUT_MS). */
  setpointTimeoutMs: number
  /** How long a controls app waits Starting for the edge agent's answer before it is Failed, ms (LINTEL_CONTROLS_DEPLOY_TIMEOUT_MS, 60 s). */
  controlsDeployTimeoutMs: number
  /** Largest JSON body of POST .../timeseries, bytes. */
  ingestBodyLimit: number
  /** Largest CSV upload, bytes. */
  uploadLimit: number
  /** Time limits of HTTP requests, ms (api/request-time-limits.ts): headers (LINTEL_HTTP_HEADERS_TIMEOUT_S, 10 s), a body read whole (LINTEL_HTTP_BODY_TIMEOUT_S, 60 s, 0 off). */
  httpTimeouts: { headersMs: number; bodyMs: number }
  /** Whether new projects may use virtual datapoints. */
  vdpDefaultEnabled: boolean
  /** How far behind its pin's newest observation a late or corrected input still recomputes a virtual datapoint, seconds (0: never). */
  vdpLatenessSeconds: number
  /** Internal hosts, addresses or CIDR ranges alert webhooks may reach (LINTEL_WEBHOOK_ALLOW); none by default. */
  webhookAllow: string[]
  mqtt: {
    tlsPort: number
    wsPort: number
    /** Plain TCP, for local development only; off unless set. */
    tcpPort?: number
    certFile?: string
    keyFile?: string
    /** Largest MQTT packet after login, bytes (LINTEL_MQTT_MAX_PACKET_KB, default 1024 KiB). */
    maxPacketBytes: number
    /**
     * Connections not logged in yet (ingest/mqtt/pre-auth.ts, issue 29 item 2): largest packet and
     * WebSocket frame (LINTEL_MQTT_PREAUTH_PACKET_KB, default 64), how many in the process
     * (LINTEL_MQTT_PREAUTH_MAX, 500) and from one address (LINTEL_MQTT_PREAUTH_PER_ADDRESS, 50),
     * time to log in (LINTEL_MQTT_PREAUTH_SECONDS, 10).
     */
    preAuth: { packetBytes: number; maxConnections: number; maxPerAddress: number; timeoutMs: number }
  }
  /** Document storage (server/blobs-config.ts); undefined: documents are not served. */
  blobs?: BlobConfig
  /** Bounds of running document uploads (server/uploads-config.ts). */
  uploads: UploadLimits
  /** Bounds of alerts and their notifications (server/alerts-config.ts). */
  alertLimits: AlertLimits
  /** The SMTP server of e-mail notifications (server/smtp-config.ts); undefined: no e-mail. */
  smtp?: SmtpSettings
  /** The Prometheus listener (server/metrics-config.ts); undefined: off (the default). */
  metricsListener?: MetricsListener
  /** Analysis results kept per instance, oldest dropped first (LINTEL_ANALYSIS_MAX_RESULTS, default 1,000). */
  analysisMaxResults: number
  /** The component library's directory (LINTEL_COMPONENTS_DIR; default data/components of the installation). */
  componentsDir?: string
  /** First start of an empty installation: the operator's first company and its admin. */
  bootstrap?: { companyName: string; adminEmail: string; adminPassword: string }
}

export class ConfigError extends Error {}

type Source = Record<string, string | undefined>

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

export function loadConfig(env: Source = process.env): Config {
  const source: Source = { ...readConfigFile(env.LINTEL_CONFIG), ...definedOnly(env) }
  const problems: string[] = []
  const str = (name: string, fallback: string): string => {
    const v = source[name]
    if (v === undefined) return fallback
    if (v.trim() === '') problems.push(`${name} must not be empty`)
    return v
  }
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const v = source[name]
    if (v === undefined) return fallback
    const n = Number(v)
    if (!/^\s*\d+\s*$/.test(v) || n < min || n > max) problems.push(`${name} must be an integer from ${min} to ${max}, got '${v}'`)
    return n
  }

  const config: Config = {
    catalog: 'sqlite',
    dataDir: str('LINTEL_DATA_DIR', './var'),
    catalogDir: '',
    host: str('LINTEL_HOST', '127.0.0.1'),
    httpPort: int('LINTEL_HTTP_PORT', 8080, 0, 65535),
    logLevel: str('LINTEL_LOG_LEVEL', 'info'),
    tokenTtlSeconds: int('LINTEL_TOKEN_TTL', 3600, 60, 30 * 86400),
    liveLimits: { maxQueueBytes: int('LINTEL_LIVE_QUEUE_KB', 1024, 16, 1024 * 1024) * 1024, maxFill: int('LINTEL_LIVE_MAX_FILL', 100_000, 1000, 10_000_000) },
    setpointTimeoutMs: int('LINTEL_SETPOINT_TIMEOUT_MS', 10_000, 100, 3_600_000),
    controlsDeployTimeoutMs: int('LINTEL_CONTROLS_DEPLOY_TIMEOUT_MS', 60_000, 1000, 86_400_000),
    ingestBodyLimit: int('LINTEL_INGEST_BODY_MB', 64, 1, 1024) * 1024 * 1024,
    uploadLimit: int('LINTEL_UPLOAD_LIMIT_MB', 4096, 1, 1024 * 1024) * 1024 * 1024,
    httpTimeouts: { headersMs: int('LINTEL_HTTP_HEADERS_TIMEOUT_S', 10, 1, 3600) * 1000, bodyMs: int('LINTEL_HTTP_BODY_TIMEOUT_S', 60, 0, 86_400) * 1000 },
    vdpDefaultEnabled: true,
    vdpLatenessSeconds: int('LINTEL_VDP_LATENESS', 3600, 0, 366 * 86400),
    webhookAllow: [],
    uploads: readUploadLimits(int),
    alertLimits: readAlertLimits(int),
    analysisMaxResults: int('LINTEL_ANALYSIS_MAX_RESULTS', 1000, 1, 1_000_000),
    mqtt: { tlsPort: 8884, wsPort: 9001, maxPacketBytes: 1024 * 1024, preAuth: { packetBytes: 64 * 1024, maxConnections: 500, maxPerAddress: 50, timeoutMs: 10_000 } },
    roles: new Set(ROLES), store: 'embedded', log: 'memory', nodeId: '', questdbTable: 'obs', kafkaTopic: 'lintel.observations',
  }
  if (source.LINTEL_COMPONENTS_DIR !== undefined) config.componentsDir = source.LINTEL_COMPONENTS_DIR
  const roleText = source.LINTEL_ROLES ?? 'api,broker,worker'
  const roles = roleText.split(',').map((r) => r.trim()).filter((r) => r !== '')
  const badRoles = roles.filter((r) => !ROLES.includes(r as Role))
  if (roles.length === 0 || badRoles.length > 0) problems.push(`LINTEL_ROLES must be a comma-separated list of api, broker, worker, got '${roleText}'`)
  config.roles = new Set(roles.filter((r): r is Role => ROLES.includes(r as Role)))
  const choice = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const v = source[name]
    if (v === undefined) return fallback
    if (!allowed.includes(v as T)) problems.push(`${name} must be one of ${allowed.join(', ')}, got '${v}'`)
    return v as T
  }
  config.store = choice('LINTEL_STORE', ['embedded', 'questdb'] as const, 'embedded')
  config.log = choice('LINTEL_LOG', ['memory', 'kafka'] as const, 'memory')
  config.questdb = source.LINTEL_QUESTDB
  config.catalog = choice('LINTEL_CATALOG', ['sqlite', 'postgres'] as const, 'sqlite')
  config.postgresUrl = source.LINTEL_POSTGRES_URL
  if (config.catalog === 'postgres' && !config.postgresUrl) problems.push('LINTEL_CATALOG=postgres needs LINTEL_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/lintel)')
  if (config.postgresUrl !== undefined && !/^postgres(ql)?:\/\/[^\s]+$/.test(config.postgresUrl)) problems.push(`LINTEL_POSTGRES_URL must be a postgres:// or postgresql:// URL, got '${config.postgresUrl.replace(/:[^:@/]*@/, ':***@')}'`)
  if (config.postgresUrl !== undefined && config.catalog !== 'postgres') problems.push('LINTEL_POSTGRES_URL is set but LINTEL_CATALOG is not postgres: set LINTEL_CATALOG=postgres, or remove LINTEL_POSTGRES_URL')
  config.kafkaBrokers = source.LINTEL_KAFKA_BROKERS
  config.questdbTable = source.LINTEL_QUESTDB_TABLE ?? 'obs'
  config.kafkaTopic = source.LINTEL_KAFKA_TOPIC ?? 'lintel.observations'
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(config.questdbTable)) problems.push(`LINTEL_QUESTDB_TABLE must be a plain table name, got '${config.questdbTable}'`)
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(config.kafkaTopic)) problems.push(`LINTEL_KAFKA_TOPIC must be a Kafka topic name, got '${config.kafkaTopic}'`)
  config.redisUrl = source.LINTEL_REDIS_URL
  config.catalogDir = str('LINTEL_CATALOG_DIR', config.dataDir)
  config.nodeId = source.LINTEL_NODE_ID ?? `node-${process.pid}`
  if (config.store === 'questdb' && !config.questdb) problems.push('LINTEL_STORE=questdb needs LINTEL_QUESTDB (e.g. http://127.0.0.1:9000)')
  if (config.log === 'kafka' && !config.kafkaBrokers) problems.push('LINTEL_LOG=kafka needs LINTEL_KAFKA_BROKERS (e.g. 127.0.0.1:9092)')
  if (config.redisUrl !== undefined && !/^redis:\/\/[^\s]+$/.test(config.redisUrl)) problems.push(`LINTEL_REDIS_URL must be a redis:// URL, got '${config.redisUrl}'`)
  if (config.roles.size > 0 && config.roles.size < ROLES.length) {
    // Separate processes share only what lives outside them.
    if (config.log === 'memory') problems.push(`LINTEL_ROLES=${roleText} runs part of the platform in this process: the others can only be reached through a shared log, set LINTEL_LOG=kafka`)
    if (config.store === 'embedded') problems.push(`LINTEL_ROLES=${roleText} runs part of the platform in this process: the embedded store lives inside one process, set LINTEL_STORE=questdb`)
  }
  const vdp = source.LINTEL_VDP_DEFAULT
  if (vdp !== undefined) {
    if (vdp !== 'enabled' && vdp !== 'disabled') problems.push(`LINTEL_VDP_DEFAULT must be enabled or disabled, got '${vdp}'`)
    config.vdpDefaultEnabled = vdp !== 'disabled'
  }
  if (source.LINTEL_WEBHOOK_ALLOW !== undefined) {
    const allow = parseWebhookAllow(source.LINTEL_WEBHOOK_ALLOW)
    if (typeof allow === 'string') problems.push(allow)
    else config.webhookAllow = allow
  }
  const certFile = source.LINTEL_MQTT_CERT_FILE
  const keyFile = source.LINTEL_MQTT_KEY_FILE
  if ((certFile === undefined) !== (keyFile === undefined)) problems.push('LINTEL_MQTT_CERT_FILE and LINTEL_MQTT_KEY_FILE must be given together')
  config.mqtt = {
    tlsPort: int('LINTEL_MQTT_TLS_PORT', 8884, 0, 65535),
    wsPort: int('LINTEL_MQTT_WS_PORT', 9001, 0, 65535),
    tcpPort: source.LINTEL_MQTT_TCP_PORT === undefined ? undefined : int('LINTEL_MQTT_TCP_PORT', 0, 0, 65535),
    certFile, keyFile,
    // Before login the broker accepts 64 KiB per packet whatever this says (issue 9, item 2).
    maxPacketBytes: int('LINTEL_MQTT_MAX_PACKET_KB', 1024, 1, 64 * 1024) * 1024,
    preAuth: {
      packetBytes: int('LINTEL_MQTT_PREAUTH_PACKET_KB', 64, 1, 1024) * 1024,
      maxConnections: int('LINTEL_MQTT_PREAUTH_MAX', 500, 1, 1_000_000),
      maxPerAddress: int('LINTEL_MQTT_PREAUTH_PER_ADDRESS', 50, 1, 1_000_000),
      timeoutMs: int('LINTEL_MQTT_PREAUTH_SECONDS', 10, 1, 3600) * 1000,
    },
  }
  if (source.LINTEL_MQTT_PREAUTH_PACKET_KB === undefined) config.mqtt.preAuth.packetBytes = Math.min(config.mqtt.preAuth.packetBytes, config.mqtt.maxPacketBytes)
  else if (config.mqtt.preAuth.packetBytes > config.mqtt.maxPacketBytes) problems.push(`LINTEL_MQTT_PREAUTH_PACKET_KB (${config.mqtt.preAuth.packetBytes / 1024}) must not exceed LINTEL_MQTT_MAX_PACKET_KB (${config.mqtt.maxPacketBytes / 1024})`)
  if (!LOG_LEVELS.includes(config.logLevel)) problems.push(`LINTEL_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${config.logLevel}'`)

  const boot = ['LINTEL_COMPANY_NAME', 'LINTEL_ADMIN_EMAIL', 'LINTEL_ADMIN_PASSWORD'].map((k) => source[k])
  const given = boot.filter((v) => v !== undefined).length
  if (given === 3) {
    const [companyName, adminEmail, adminPassword] = boot as string[]
    if (companyName.trim() === '' || companyName.length > 200) problems.push('LINTEL_COMPANY_NAME must be 1 to 200 characters')
    if (!/^[^\s@]+@[^\s@]+$/.test(adminEmail)) problems.push(`LINTEL_ADMIN_EMAIL must be an email address, got '${adminEmail}'`)
    if (adminPassword.length < 8) problems.push('LINTEL_ADMIN_PASSWORD must be at least 8 characters')
    config.bootstrap = { companyName, adminEmail, adminPassword }
  } else if (given > 0) {
    problems.push('LINTEL_COMPANY_NAME, LINTEL_ADMIN_EMAIL and LINTEL_ADMIN_PASSWORD must be given together')
  }

  config.smtp = readSmtpConfig(source, int, problems)
  config.metricsListener = readMetricsListener(source, int, problems)
  config.blobs = readBlobsConfig(source, { ...config, splitRoles: config.roles.size > 0 && config.roles.size < ROLES.length }, problems)

  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`)
  return config
}

function readConfigFile(path: string | undefined): Source {
  if (!path) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new ConfigError(`Invalid configuration: cannot read LINTEL_CONFIG file '${path}': ${(err as Error).message}`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`Invalid configuration: LINTEL_CONFIG file '${path}' must hold a JSON object`)
  }
  return Object.fromEntries(Object.entries(parsed).map(([k, v]) => [k, String(v)]))
}

function definedOnly(env: Source): Source {
  return Object.fromEntries(Object.entries(env).filter(([k, v]) => k.startsWith('LINTEL_') && v !== undefined))
}
