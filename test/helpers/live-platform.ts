// The whole platform in this process with real listeners on ephemeral ports: HTTP, MQTT over
// TLS, MQTT over secure WebSockets and (for tests) plain TCP. All platforms of a test run share
// one TLS key pair (tls-pair.ts); `seams` reach start()'s test seams (a gated store, a small
// ingest queue).
import { readFileSync } from 'node:fs'
import type { Test } from 'tap'
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt'
import { loadConfig } from '../../server/config.ts'
import { start, type StartSeams } from '../../server/main.ts'
import { basic, type Login } from './platform.ts'
import { ensureRunTls } from './tls-pair.ts'
import { holdsWithin } from './wait.ts'

export const ADMIN: Login = { email: 'admin@live.test', password: 'live-admin-pass' }

export async function livePlatform(t: Test, env: Record<string, string> = {}, seams: StartSeams = {}) {
  const dir = t.testdir()
  const config = loadConfig({
    LINTEL_DATA_DIR: dir, LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'silent',
    LINTEL_COMPANY_NAME: 'Live', LINTEL_ADMIN_EMAIL: ADMIN.email, LINTEL_ADMIN_PASSWORD: ADMIN.password, ...await ensureRunTls(), ...env,
  })
  const started = await start(config, seams)
  t.teardown(() => started.stop())
  // All roles run here: the API, the broker and the CA file exist.
  const platform = { ...started, broker: started.broker!, address: started.address!, caFile: started.caFile! }
  const ca = readFileSync(platform.caFile)
  const http = async (method: string, path: string, body?: unknown, who: Login = ADMIN) => {
    const res = await fetch(platform.address + path, {
      method, headers: { authorization: basic(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: await res.json() as any }
  }
  const project = async (name: string) => (await http('POST', '/v2/company/project', { name })).body.resource.project.id as number
  /** An MQTT account of the project; `edge` designates it as the project's edge agent (issue 29). */
  const account = async (pid: number, username: string, rights: 'read' | 'write' = 'write', validity?: number, edge?: boolean) => {
    const res = await http('POST', `/v2/project/${pid}/mqttuser`, { username, password: `${username}-password`, rights, validity, edge })
    if (res.status !== 201) throw new Error(JSON.stringify(res.body))
    return { username, password: `${username}-password`, id: res.body.resource.id as number }
  }
  const clients: MqttClient[] = []
  t.teardown(() => Promise.all(clients.map((c) => c.endAsync(true))))
  const connect = async (who: { username: string; password: string }, opts: IClientOptions & { via?: 'tls' | 'ws' | 'tcp' } = {}) => {
    const { via = 'tls', ...rest } = opts
    const { ports } = platform.broker
    const url = via === 'tls' ? `mqtts://127.0.0.1:${ports.tls}` : via === 'ws' ? `wss://127.0.0.1:${ports.ws}` : `mqtt://127.0.0.1:${ports.tcp}`
    const client = await mqtt.connectAsync(url, { ca, username: who.username, password: who.password, reconnectPeriod: 0, connectTimeout: 5000, ...rest })
    clients.push(client)
    return client
  }
  const read = async (pid: number, id: string, query = '') =>
    (await http('GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=${encodeURIComponent(id)}${query}`)).body
  return { platform, ca, http, project, account, connect, read }
}

/** Whether `cond` holds within `ms` (a bounded poll, test/helpers/wait.ts); callers assert with their message. */
export const until = (cond: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> => holdsWithin(cond, { timeoutMs: ms, intervalMs: 20 })
