// The MQTT broker of the platform (spec 3 "MQTT broker interface"): aedes behind TLS 1.2
// (MQTT on LINTEL_MQTT_TLS_PORT, WebSockets on LINTEL_MQTT_WS_PORT), plain TCP only when
// configured for local development. Hooks, in the order a client meets them:
//   authenticate   – broker accounts of a project; client ids with / + # are refused
//   authorizeSubscribe / authorizePublish – the account's topic prefix and rights only
//   publish        – time series are stored durably *before* the PUBACK and before any
//                    subscriber sees them (storage-first); META updates tags; CONTROLS are
//                    validated and handed to the controls stream
// Expired or revoked accounts lose their connections.
import { Aedes, type AuthenticateError, type Client } from 'aedes'
import { Subject } from 'rxjs'
import type { Catalog } from '../../catalog/index.ts'
import type { DatapointResolver } from '../datapoint-resolver.ts'
import type { Ingest } from '../../engine/ingest.ts'
import { classifyTopic, canPublish, canSubscribe, validClientId } from './topics.ts'
import { parseControlsMessage, type ControlsMessage } from './controls-message.ts'
import { clusterBackends } from './cluster.ts'
import { startListeners, type ListenerOptions, type Listeners } from './listeners.ts'
import { MetaMessages } from './meta-messages.ts'
import { MqttAuthenticator, type MqttSession } from './session.ts'
import { TimeseriesMessages } from './timeseries-messages.ts'

export interface BrokerLog {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

export interface BrokerDeps {
  catalog: Catalog
  /** Where time-series lines go (the ingest queue, or the log in scaled mode). */
  ingest: Ingest
  /** Counters of what lies behind `ingest` (queue depth, ...), merged into metrics(). */
  ingestMetrics?: () => object
  resolver: DatapointResolver
  log: BrokerLog
  listen: ListenerOptions
  /** How often expiry of accounts is checked, ms. */
  expiryCheckMs?: number
  /** Cluster mode: Redis shared by all broker nodes (sessions, retained, subscriptions). */
  redisUrl?: string
  /** Unique per node in a cluster. */
  nodeId?: string
}

export interface RoutedControls { projectId: number; username: string; message: ControlsMessage }

export interface Broker {
  ports: Listeners['ports']
  /** Valid CONTROLS messages, for the setpoint engine. */
  controls: Subject<RoutedControls>
  /** Ends every connection of the account (deleted, password or rights changed). */
  revoke(username: string): void
  metrics(): Record<string, number>
  close(): Promise<void>
}

type LintelClient = Client & { lintel?: MqttSession }

/** Where refused-but-received payloads go: `$` topics never match a subscriber's wildcard. */
const DROPPED = '$lintel/dropped'

function authError(message: string, returnCode: number): AuthenticateError {
  return Object.assign(new Error(message), { returnCode }) as AuthenticateError
}

export async function startBroker(deps: BrokerDeps): Promise<Broker> {
  const { catalog, log } = deps
  const auth = new MqttAuthenticator(catalog)
  const timeseries = new TimeseriesMessages(deps.resolver, deps.ingest, log)
  const meta = new MetaMessages(catalog)
  const controls = new Subject<RoutedControls>()
  const counters = { connections_refused: 0, publishes_refused: 0, subscriptions_refused: 0, controls_dropped: 0, meta_dropped: 0, store_failures: 0 }

  const backends = deps.redisUrl ? clusterBackends(deps.redisUrl) : undefined
  const broker = await Aedes.createBroker({
    id: deps.nodeId ?? 'lintel',
    ...(backends ?? {}),
    maxClientsIdLength: 256,
    drainTimeout: 30_000,
    authenticate: (client, username, password, done) => {
      if (!validClientId(client.id)) {
        counters.connections_refused++
        return done(authError('client identifier must not contain / + #', 2), false)
      }
      auth.authenticate(username, password).then((session) => {
        if (!session) {
          counters.connections_refused++
          return done(authError('bad username or password', 4), false)
        }
        (client as LintelClient).lintel = session
        done(null, true)
      }, (err) => done(authError(String(err), 3), false))
    },
    authorizeSubscribe: (client, sub, done) => {
      const s = (client as LintelClient).lintel
      if (s && canSubscribe(s, sub.topic)) return done(null, sub)
      counters.subscriptions_refused++
      done(null, null) // SUBACK 128 for this filter; the connection stays
    },
    authorizePublish: (client, packet, done) => {
      const s = (client as LintelClient | null)?.lintel
      if (!s || !canPublish(s, packet.topic)) {
        counters.publishes_refused++
        return done(new Error(`not authorized to publish on ${packet.topic}`))
      }
      const topic = classifyTopic(packet.topic)!
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload)
      if (topic.kind === 'timeseries') {
        timeseries.handle(s, payload).then(() => done(null), (err) => {
          // No PUBACK: the client keeps the message and sends it again after reconnecting.
          counters.store_failures++
          log.error({ err, username: s.username }, 'mqtt: store write failed; closing the connection without acknowledgement')
          done(err as Error)
        })
        return
      }
      if (topic.kind === 'meta') {
        if (!meta.handle(s.projectId, payload)) counters.meta_dropped++
        return done(null)
      }
      const parsed = parseControlsMessage(payload)
      if (!parsed.ok) {
        counters.controls_dropped++
        packet.topic = DROPPED
        return done(null)
      }
      controls.next({ projectId: s.projectId, username: s.username, message: parsed.message })
      done(null)
    },
  })

  const clientsOf = (pred: (s: MqttSession) => boolean): LintelClient[] =>
    Object.values((broker as unknown as { clients: Record<string, LintelClient> }).clients).filter((c) => c.lintel && pred(c.lintel))

  // Expiry (spec 1 lifecycle) and revocation by the operator tool (another process): every
  // tick removes expired accounts and ends connections whose account is no longer valid.
  const expiry = setInterval(() => {
    try {
      catalog.mqttAccounts.removeExpired()
      const clients = clientsOf(() => true)
      if (clients.length === 0) return
      const valid = catalog.mqttAccounts.validUntilById()
      for (const c of clients) {
        if (!valid.has(c.lintel!.accountId)) c.close()
        else c.lintel!.validUntil = valid.get(c.lintel!.accountId)!
      }
    } catch (err) {
      log.error({ err }, 'mqtt: expiry check failed')
    }
  }, deps.expiryCheckMs ?? 1000)
  expiry.unref()

  const listeners = await startListeners(broker.handle, deps.listen)
  log.info({ ports: listeners.ports }, 'mqtt broker listening')

  return {
    ports: listeners.ports,
    controls,
    revoke: (username) => { for (const c of clientsOf((s) => s.username === username)) c.close() },
    metrics: () => ({
      ...counters, ...(deps.ingestMetrics?.() ?? {}), connected_clients: broker.connectedClients,
      lines_stored: timeseries.goodLines, lines_dropped: timeseries.badLines,
    }),
    close: async () => {
      clearInterval(expiry)
      // Clients first (closing a listener waits for its open connections), then listeners.
      await new Promise<void>((resolve) => broker.close(() => resolve()))
      backends?.disconnect()
      await listeners.close()
      controls.complete()
    },
  }
}
