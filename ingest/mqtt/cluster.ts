// Shared state of clustered broker nodes (issue 6): sessions, retained messages and
// subscriptions in Redis (aedes-persistence-redis), messages between nodes through Redis
// pub/sub (mqemitter-redis). A message published on one node reaches subscribers on all.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

export interface ClusterBackends {
  mq: unknown
  persistence: unknown
  /** Ends the persistence's Redis connection (aedes.close() closes only the mq). */
  disconnect(): void
}

export function redisOptions(url: string): { host: string; port: number; password?: string; db?: number } {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw new Error(`LINTEL_REDIS_URL must be a redis:// URL, got '${url}'`)
  }
  if (u.protocol !== 'redis:') throw new Error(`LINTEL_REDIS_URL must be a redis:// URL, got '${url}'`)
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined
  return { host: u.hostname, port: Number(u.port || 6379), ...(u.password ? { password: decodeURIComponent(u.password) } : {}), ...(db === undefined ? {} : { db }) }
}

/** The aedes `mq` and `persistence` of a cluster node; both are CommonJS packages. */
export function clusterBackends(redisUrl: string): ClusterBackends {
  const opts = redisOptions(redisUrl)
  const persistence = require('aedes-persistence-redis') as (o: object) => unknown
  const mqemitter = require('mqemitter-redis') as (o: object) => unknown
  // Our own connection for the persistence, so that closing can end it: the persistence's
  // destroy() waits on an mq unsubscribe that never answers once the broker has closed.
  const Redis = require('ioredis') as new (o: object) => { disconnect(): void }
  const conn = new Redis(opts)
  return { persistence: persistence({ conn }), mq: mqemitter(opts), disconnect: () => conn.disconnect() }
}
