// Setpoints across processes (scaled mode, issue 11): an API process without the broker role
// reaches the edge through what the broker cluster already shares, Redis.
//   out   NEWSPT: a headless aedes node on the cluster's mqemitter-redis and
//         aedes-persistence-redis (no listener, no clients). Its publish() runs aedes' own QoS 1
//         pipeline (offline queues of persistent sessions, then the mq), so edge clients on
//         any broker node receive it exactly as from a broker node's own publish.
//   in    SPTACK: every broker node with Redis forwards the answers it validated (the
//         project's own write accounts with the datapoint in reach, broker.ts) on an internal
//         Redis pub/sub channel; no MQTT client can subscribe to it. API processes listen.
// Every API process hears every answer; the catalog's conditional advance lets only the
// first one change the operation (engine/setpoints/service.ts).
import type { EventEmitter } from 'node:events'
import { createRequire } from 'node:module'
import { Aedes } from 'aedes'
import type { Subscription } from 'rxjs'
import type { SetpointService } from '../../engine/setpoints/service.ts'
import { readSetpointAck, SPTACK } from '../../protocol/setpoint-messages.ts'
import type { ControlsMessage } from '../../protocol/controls-message.ts'
import type { Broker, RoutedControls } from './broker.ts'
import { clusterBackends, redisOptions } from './cluster.ts'

const require = createRequire(import.meta.url)

/** The internal channel of validated SPTACK answers (Redis pub/sub, not MQTT). */
export const ANSWERS_CHANNEL = 'lintel:setpoint-answers'

export interface RedisClient {
  publish(channel: string, message: string): Promise<number>
  subscribe(channel: string): Promise<unknown>
  on(event: 'message', fn: (channel: string, message: string) => void): unknown
  on(event: 'error', fn: (err: Error) => void): unknown
  disconnect(): void
}

/** A Redis connection of ioredis (also the controls-app relay's). */
export const redis = (url: string): RedisClient => {
  const Redis = require('ioredis') as new (o: object) => RedisClient
  return new Redis(redisOptions(url))
}

/** A publish-only member of the broker cluster, for an API process without the broker role. */
export async function clusterPublisher(redisUrl: string, onError: (err: unknown) => void): Promise<Pick<Broker, 'publish'> & { close(): Promise<void> }> {
  const backends = clusterBackends(redisUrl)
  const node = await Aedes.createBroker({
    ...(backends as object),
    // It has no clients: wills of other nodes' clients are theirs to publish, not this node's.
    authorizePublish: (_client, _packet, done) => done(new Error('a publish-only node publishes no wills')),
  })
  ;(node as unknown as EventEmitter).on('error', onError)
  return {
    publish: (topic, payload) => new Promise<void>((resolve, reject) => {
      node.publish({ cmd: 'publish', topic, payload, qos: 1, retain: false, dup: false }, (err?: Error) => (err ? reject(err) : resolve()))
    }),
    close: async () => {
      await new Promise<void>((resolve) => node.close(() => resolve()))
      backends.disconnect()
    },
  }
}

interface ForwardedAnswer { projectId: number; username: string; message: ControlsMessage }

/** A broker node: forwards the SPTACK answers it validated to the API processes. */
export function forwardSetpointAnswers(controls: Broker['controls'], redisUrl: string, onError: (err: unknown) => void): { close(): void } {
  const pub = redis(redisUrl)
  pub.on('error', onError)
  const sub: Subscription = controls.subscribe((c: RoutedControls) => {
    if (c.message.type !== SPTACK) return
    const out: ForwardedAnswer = { projectId: c.projectId, username: c.username, message: c.message }
    pub.publish(ANSWERS_CHANNEL, JSON.stringify(out)).catch(onError)
  })
  return { close: () => { sub.unsubscribe(); pub.disconnect() } }
}

/** An API process without the broker role: hears the answers the broker nodes forward. */
export async function listenSetpointAnswers(redisUrl: string, service: SetpointService, onError: (err: unknown) => void): Promise<{ close(): void }> {
  const sub = redis(redisUrl)
  sub.on('error', onError)
  sub.on('message', (channel, text) => {
    if (channel !== ANSWERS_CHANNEL) return
    let a: ForwardedAnswer
    try {
      a = JSON.parse(text) as ForwardedAnswer
    } catch (err) {
      return onError(err)
    }
    const source = { projectId: a.projectId, username: a.username }
    const read = readSetpointAck(a.message)
    if (!read.ok) return service.ignoredAnswer(source, read.error)
    service.onAnswer(source, read.ack).catch(onError)
  })
  await sub.subscribe(ANSWERS_CHANNEL)
  return { close: () => sub.disconnect() }
}
