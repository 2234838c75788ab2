// The MQTT connection options of the edge agent, in one place: the NEWSPT client (agent.ts)
// and the controls apps' link (apps/link.ts) log in with the same account, CA, reconnection
// and time-outs. Each connection has its own client id (the broker lets one id take over
// another's connection): `edge-<random>` and `edge-apps-<random>`, or the configured id and
// `<id>-apps`. A refused login is retried with back-off on both (connect-retry.ts).
import type { IClientOptions } from 'mqtt'
import { retryRefusedLogins } from './connect-retry.ts'

export interface EdgeConnection {
  /** mqtts://host:port (TLS; spec 3 accepts nothing else in production) */
  url: string
  /** CA certificate(s) the broker's certificate must chain to (PEM); default: the system's */
  ca?: Buffer | string
  username: string
  password: string
  /** default edge-<random> (the apps' link: <id>-apps) */
  clientId?: string
  /** Reconnect after this many ms when the connection drops (0: never; default 1000). */
  reconnectPeriod?: number
}

/** The options of one of the agent's connections; `role` names it in its client id ('apps' for the link). */
export function edgeConnectOptions(o: EdgeConnection, role?: 'apps'): IClientOptions {
  const suffix = role ? `-${role}` : ''
  const clientId = o.clientId ? `${o.clientId}${suffix}` : `edge${suffix}-${Math.random().toString(36).slice(2, 10)}`
  return { ca: o.ca, username: o.username, password: o.password, clientId, reconnectPeriod: o.reconnectPeriod ?? 1000, connectTimeout: 10_000, clean: true, ...retryRefusedLogins }
}
