// The MQTT broker of the platform (spec 3 "MQTT broker interface"): aedes behind TLS 1.2
// (MQTT on LINTEL_MQTT_TLS_PORT, WebSockets on LINTEL_MQTT_WS_PORT), plain TCP only when
// configured for local development. Hooks, in the order a client meets them:
//   (listeners)    – every packet's size is bounded: 64 KiB before authentication, the
//                    configured maximum after it (packet-guard.ts)
//   authenticate   – broker accounts of a project; client ids with / + # are refused; logins
//                    are admitted by the throttle before the password check (per address and
//                    username, the username's known addresses exempt from the per-username
//                    count; issue 29 item 1) and refusals answered only after a delay. The client id becomes the
//                    account's own: aedes keys takeover, persistent sessions and queued
//                    messages by `<session scope>/<client id>`, so no other account can end,
//                    take over or inherit them (issue 9, item 1); "same id takes over" holds
//                    within one account.
//   authorizeSubscribe / authorizePublish – the account's topic prefix and rights only; lines,
//                    META and setpoints only for datapoints inside the account's write reach
//   publish        – time series are stored durably *before* the PUBACK and before any
//                    subscriber sees them (storage-first); META updates tags; CONTROLS are
//                    validated and handed to the controls stream; setpoint answers
//                    (SPTACK) only from the project's designated edge accounts
//   authorizeForward – a subscriber gets only what its read reach admits (reach.ts)
// Expired or revoked accounts lose their connections. Refusals are counted per project
// (counters.ts) and logged at info with account, topic and reason (refusal-log.ts).
//
// MQTT 5 reason codes: aedes 1.x speaks MQTT 3.1 and 3.1.1 only and answers an MQTT 5
// CONNECT with return code 1 (unacceptable protocol version), so there is no MQTT 5 PUBACK
// to carry a reason code; a refused publish closes the connection (MQTT 3.1.1 has no
// negative PUBACK) and the log line says why.
import { Aedes, type AuthenticateError, type Client } from 'aedes'
import { Subject } from 'rxjs'
import type { Catalog } from '../../catalog/index.ts'
import { LoginThrottle } from '../../catalog/login-throttle.ts'
import type { DatapointResolver } from '../datapoint-resolver.ts'
import type { Ingest } from '../../engine/ingest-port.ts'
import { classifyTopic, canPublish, canSubscribe, validClientId } from '../../protocol/topics.ts'
import { isSetpointMessage, parseControlsMessage, type ControlsMessage } from '../../protocol/controls-message.ts'
import { datapointOf, SPTACK } from '../../protocol/setpoint-messages.ts'
import { APPDEF, isAppMessage } from '../../protocol/controls-app-messages.ts'
import { clusterBackends } from './cluster.ts'
import { BrokerCounters, type CounterName } from './counters.ts'
import { startListeners, type ListenerOptions, type Listeners } from './listeners.ts'
import { parseMetaMessage } from '../../protocol/meta-message.ts'
import { MetaMessages } from './meta-handler.ts'
import { PacketGuard } from './packet-guard.ts'
import { PreAuthGate, type PreAuthOptions } from './pre-auth.ts'
import { keepLines, ReachCheck } from './reach.ts'
import { DatapointTagCache } from './tag-cache.ts'
import { RefusalLog } from './refusal-log.ts'
import { MqttAuthenticator, type MqttSession } from './session.ts'
import { TimeseriesMessages } from './timeseries-messages.ts'

export interface BrokerLog {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
  error(obj: object, msg: string): void
}

/** Default largest MQTT packet after authentication (LINTEL_MQTT_MAX_PACKET_KB). */
export const DEFAULT_MAX_PACKET_KB = 1024

export interface BrokerDeps {
  catalog: Catalog
  /** Where time-series lines go (the ingest queue, or the log in scaled mode). */
  ingest: Ingest
  /** Counters of what lies behind `ingest` (queue depth, ...), merged into metrics(). */
  ingestMetrics?: () => object
  resolver: DatapointResolver
  log: BrokerLog
  listen: Omit<ListenerOptions, 'maxPacketBytes' | 'guard'>
  /** Largest MQTT packet after authentication, bytes (default DEFAULT_MAX_PACKET_KB KiB). */
  maxPacketBytes?: number
  /** Tagged datapoints the reach check's tag cache holds at most (default DEFAULT_MAX_TAGGED). */
  tagCacheSize?: number
  /** Failed-login counters (shared with HTTP in one process); default: the module's defaults. */
  loginThrottle?: LoginThrottle
  /** Bounds on connections not logged in yet (pre-auth.ts; LINTEL_MQTT_PREAUTH_*). */
  preAuth?: PreAuthOptions & { packetBytes?: number }
  /** A refused CONNECT is answered no sooner than this after it arrived, ms (default 500). */
  refusalDelayMs?: number
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
  /** Publishes from the platform itself (NEWSPT of the setpoint service); QoS 1, not retained. */
  publish(topic: string, payload: Buffer): Promise<void>
  /** Ends every connection of the account (deleted, password or rights changed). */
  revoke(username: string): void
  /** The whole process (operator tool). */
  metrics(): Record<string, number>
  /** The given projects only (a company's view, GET /v2/system/metrics). */
  metricsOf(projectIds: readonly number[]): Record<string, number>
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
  const tagCache = new DatapointTagCache(catalog, deps.tagCacheSize, (err) => log.warn({ err }, 'mqtt: datapoint tag cache'))
  const reach = new ReachCheck(tagCache)
  const refusals = new RefusalLog(log)
  const timeseries = new TimeseriesMessages(deps.resolver, deps.ingest, reach, refusals, catalog.seriesTags)
  const meta = new MetaMessages(catalog, reach)
  const controls = new Subject<RoutedControls>()
  const counters = new BrokerCounters()
  const throttle = deps.loginThrottle ?? new LoginThrottle()
  const refusalDelayMs = deps.refusalDelayMs ?? 500
  const maxPacketBytes = deps.maxPacketBytes ?? DEFAULT_MAX_PACKET_KB * 1024

  /** Counts and logs a refused publish; the caller decides what happens to the message. */
  const refuse = (s: MqttSession, topic: string, counter: CounterName, reason: string) => {
    counters.add(counter, s.projectId)
    refusals.refused(s, topic, reason)
  }

  /** A CONTROLS message of an account whose write reach is loaded. */
  const controlsMessage = (s: MqttSession, packet: { topic: string }, payload: Buffer, done: (err: Error | null) => void) => {
    const parsed = parseControlsMessage(payload)
    if (!parsed.ok) {
      refuse(s, packet.topic, 'controls_dropped', `invalid CONTROLS message: ${parsed.error}`)
      packet.topic = DROPPED
      return done(null)
    }
    const m = parsed.message
    // Spec 3 "Controls messages": NEWSPT goes from the platform to the edge. Only the
    // platform's setpoint service sends it, after the safeguards of spec 2 (priority, write
    // access, bounds); an account sending one would bypass them, so it is refused.
    if (isSetpointMessage(m)) {
      refuse(s, packet.topic, 'controls_refused', 'NEWSPT is sent by the platform only: write setpoints with POST /v2/datapoint/setpoint')
      packet.topic = DROPPED
      return done(null)
    }
    // Likewise APPDEF (issue 31): a controls app reaches the edge only through the API's safeguards.
    if (m.type === APPDEF) {
      refuse(s, packet.topic, 'controls_refused', 'APPDEF is sent by the platform only: manage controls apps with /v2/controls/app')
      packet.topic = DROPPED
      return done(null)
    }
    // Acknowledgements (SPTACK) name one datapoint: the account must have it in its write
    // reach; other types need the whole project.
    const dp = datapointOf(m)
    if (!(dp !== undefined ? reach.allows(s.projectId, s.reach.write, dp, 'write') : s.reach.write.all)) {
      refuse(s, packet.topic, 'controls_outside_grant', dp !== undefined
        ? `outside the account's write grant: ${m.type} for datapoint '${dp}'`
        : `outside the account's write grant: ${m.type} messages need the whole project`)
      packet.topic = DROPPED
      return done(null)
    }
    if (m.type !== SPTACK && !isAppMessage(m)) {
      controls.next({ projectId: s.projectId, username: s.username, message: m })
      return done(null)
    }
    // Issue 29 item 3: a setpoint answer marks an operation written, so it counts only from an
    // account the project designated as its edge agent; so do the reports of controls apps
    // (APPSTATE, APPLOG, APPSYNC; issue 31). The flag is the session's, from the login: the
    // operator's `lintel mqtt edge --disable` changes the account's grant fingerprint, and the
    // tick below ends the connection within expiryCheckMs (1 s), from any process; the login
    // that follows has the flag off.
    if (s.edge) controls.next({ projectId: s.projectId, username: s.username, message: m })
    else {
      refuse(s, packet.topic, 'controls_not_edge', `not an edge account: ${m.type}${dp !== undefined ? ` for datapoint '${dp}'` : ''} is accepted only from the project's designated edge agents`)
      packet.topic = DROPPED
    }
    done(null)
  }

  const backends = deps.redisUrl ? clusterBackends(deps.redisUrl) : undefined
  const broker = await Aedes.createBroker({
    id: deps.nodeId ?? 'lintel',
    ...(backends ?? {}),
    maxClientsIdLength: 256,
    drainTimeout: 30_000,
    authenticate: (client, username, password, done) => {
      const c = client as LintelClient
      const guard = c.conn instanceof PacketGuard ? c.conn : undefined
      const address = guard?.remoteAddress
      if (!validClientId(client.id)) {
        counters.add('connections_refused')
        return done(authError('client identifier must not contain / + #', 2), false)
      }
      const arrived = Date.now()
      const refuseLogin = (rc: number, message: string) => {
        setTimeout(() => done(authError(message, rc), false), Math.max(0, refusalDelayMs - (Date.now() - arrived)))
      }
      // Admitted before the password is checked, counted as failed until it proves right
      // (catalog/login-throttle.ts): a burst of guesses gets only the limit's checks. The
      // username is compared exactly, as the broker compares it. A refused attempt checks no
      // password and is answered after the same delay as a wrong one.
      const admission = throttle.begin(address, username ?? '')
      if (!admission.admitted) {
        const seconds = Math.ceil(admission.retryAfterMs / 1000)
        counters.add('connections_throttled')
        refusals.refused({ username: username ?? '', address }, undefined, `too many failed logins (${admission.limit}): retry in ${seconds} s`, 'mqtt: login refused')
        return refuseLogin(5, `too many failed logins; retry in ${seconds} s`)
      }
      auth.authenticate(username, password).then(async (session) => {
        if (!session) {
          counters.add('connections_refused', (await catalog.mqttAccounts.findValid(username ?? ''))?.project_id)
          refusals.refused({ username: username ?? '', address }, undefined, 'bad username or password', 'mqtt: login refused')
          return refuseLogin(4, 'bad username or password')
        }
        admission.attempt.succeeded()
        // What the broker forwards to it is checked synchronously (authorizeForward): the
        // tags its read reach needs are loaded before it is let in.
        await reach.ready(session.projectId, session.reach.read, 'read')
        c.lintel = { ...session, clientId: client.id }
        client.id = `${session.sessionScope}/${client.id}`
        guard?.authenticated(maxPacketBytes)
        done(null, true)
      }).catch((err) => done(authError(String(err), 3), false)) // the catalog (or the tag cache's load) failed
    },
    authorizeSubscribe: (client, sub, done) => {
      const s = (client as LintelClient).lintel
      if (s && canSubscribe(s, sub.topic)) return done(null, sub)
      if (s) {
        counters.add('subscriptions_refused', s.projectId)
        refusals.refused(s, sub.topic, `not authorized to subscribe (${s.rights} account of ${s.group}/${s.handle})`, 'mqtt: subscription refused')
      }
      done(null, null) // SUBACK 128 for this filter; the connection stays
    },
    authorizePublish: (client, packet, done) => {
      const s = (client as LintelClient | null)?.lintel
      if (!s) return done(new Error(`not authorized to publish on ${packet.topic}`))
      if (!canPublish(s, packet.topic)) {
        refuse(s, packet.topic, 'publishes_refused', s.rights === 'write'
          ? `topic outside the account's project ${s.group}/${s.handle}`
          : 'the account has read rights only')
        return done(new Error(`not authorized to publish on ${packet.topic}`))
      }
      const topic = classifyTopic(packet.topic)!
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload)
      if (topic.kind === 'timeseries') {
        timeseries.handle(s, packet.topic, payload).then(async (n) => {
          counters.add('lines_stored', s.projectId, n.stored)
          counters.add('lines_dropped', s.projectId, n.bad)
          counters.add('lines_outside_grant', s.projectId, n.outside)
          counters.add('tag_changes_stored', s.projectId, n.tagsStored)
          counters.add('tag_changes_over_limit', s.projectId, n.tagsOverLimit)
          if (n.outside > 0) {
            // Subscribers never see lines that were refused.
            await reach.ready(s.projectId, s.reach.write, 'write')
            const kept = keepLines(payload, (id) => reach.allows(s.projectId, s.reach.write, id, 'write'))
            if (kept === null) packet.topic = DROPPED
            else packet.payload = kept
          }
          done(null)
        }, (err) => {
          // No PUBACK: the client keeps the message and sends it again after reconnecting.
          counters.add('store_failures', s.projectId)
          log.error({ err, username: s.username }, 'mqtt: store write failed; closing the connection without acknowledgement')
          done(err as Error)
        }).catch((err) => done(err as Error)) // the reach cache could not be loaded
        return
      }
      if (topic.kind === 'meta') {
        meta.handle(s, payload).then((outcome) => {
          if (!outcome.applied) {
            refuse(s, packet.topic, outcome.outsideGrant ? 'meta_outside_grant' : 'meta_dropped', outcome.reason)
            if (outcome.outsideGrant) packet.topic = DROPPED
          }
          done(null)
        }, (err) => done(err as Error))
        return
      }
      reach.ready(s.projectId, s.reach.write, 'write').then(() => controlsMessage(s, packet, payload, done), (err) => done(err as Error))
    },
    authorizeForward: (client, packet) => {
      const s = (client as LintelClient).lintel
      if (!s) return null
      const filter = s.reach.read
      if (filter.all) return packet
      const topic = classifyTopic(packet.topic)
      if (!topic) return null
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload)
      const readable = (id: string) => reach.allows(s.projectId, filter, id, 'read')
      if (topic.kind === 'meta') {
        const parsed = parseMetaMessage(payload)
        return parsed.ok && parsed.command.entity.type === 'datapoint' && readable(parsed.command.entity.id) ? packet : null
      }
      if (topic.kind === 'controls') {
        const parsed = parseControlsMessage(payload)
        const dp = parsed.ok ? datapointOf(parsed.message) : undefined
        return dp !== undefined && readable(dp) ? packet : null
      }
      const kept = keepLines(payload, readable)
      if (kept === payload || kept === null) return kept === null ? null : packet
      // A queued message replayed at reconnect is this client's own copy, and aedes writes
      // that object (not the returned one): change it in place. A live message is shared by
      // all subscribers: return a changed copy.
      if ('writeCallback' in packet) {
        packet.payload = kept
        return packet
      }
      return { ...packet, payload: kept }
    },
  })

  const clientsOf = (pred: (s: MqttSession) => boolean): LintelClient[] =>
    Object.values((broker as unknown as { clients: Record<string, LintelClient> }).clients).filter((c) => c.lintel && pred(c.lintel))

  // Expiry (spec 1 lifecycle) and revocation by another process (the operator tool, the API
  // of another node): every tick removes expired accounts and ends connections whose account
  // is no longer valid or was changed (password, rights, edge flag, reach) since they logged in.
  const expiry = setInterval(async () => {
    try {
      await catalog.mqttAccounts.removeExpired()
      const clients = clientsOf(() => true)
      if (clients.length === 0) return
      const valid = await catalog.mqttAccounts.validById()
      for (const c of clients) {
        const now = valid.get(c.lintel!.accountId)
        if (!now || now.grant !== c.lintel!.grant) c.close()
        else c.lintel!.validUntil = now.validUntil
      }
    } catch (err) {
      log.error({ err }, 'mqtt: expiry check failed')
    }
  }, deps.expiryCheckMs ?? 1000)
  expiry.unref()

  const listeners = await startListeners(broker.handle, {
    ...deps.listen, maxPacketBytes,
    guard: {
      // Addresses a device logged in from keep slots strangers cannot take (pre-auth.ts).
      gate: new PreAuthGate({ ...deps.preAuth, isKnown: (address) => throttle.isKnownAddress(address) }),
      preAuthLimit: deps.preAuth?.packetBytes,
      onPreAuthRefused: (why, address) => {
        counters.add(why === 'preauth_timeout' ? 'connections_preauth_timeout' : 'connections_preauth_refused')
        refusals.refused({ username: '', address }, undefined, why === 'preauth_timeout'
          ? 'not logged in within the pre-login time limit'
          : `too many connections not logged in yet (${why === 'preauth_full' ? 'in all' : 'from this address'})`, 'mqtt: connection closed')
      },
      onOversize: (declared, limit, authenticated) => {
        counters.add('packets_oversize')
        refusals.refused({ username: '' }, undefined, `packet over the size limit: at least ${declared} bytes declared, limit ${limit} (${authenticated ? 'after' : 'before'} login)`, 'mqtt: connection closed')
      },
    },
  })
  log.info({ ports: listeners.ports }, 'mqtt broker listening')

  return {
    ports: listeners.ports,
    controls,
    publish: (topic, payload) => new Promise<void>((resolve, reject) => {
      broker.publish({ cmd: 'publish', topic, payload, qos: 1, retain: false, dup: false }, (err?: Error) => (err ? reject(err) : resolve()))
    }),
    revoke: (username) => { for (const c of clientsOf((s) => s.username === username)) c.close() },
    metrics: () => ({ ...counters.total, ...(deps.ingestMetrics?.() ?? {}), connected_clients: broker.connectedClients }),
    metricsOf: (projectIds) => {
      const ids = new Set(projectIds)
      return { ...counters.of(ids), connected_clients: clientsOf((s) => ids.has(s.projectId)).length }
    },
    close: async () => {
      clearInterval(expiry)
      // Clients first (closing a listener waits for its open connections), then listeners.
      await new Promise<void>((resolve) => broker.close(() => resolve()))
      backends?.disconnect()
      tagCache.close()
      await listeners.close()
      controls.complete()
    },
  }
}
