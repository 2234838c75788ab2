// The app runner's own MQTT connection (issue 31 item 3): separate from the NEWSPT client of
// agent.ts so the apps start from disk and run before (and without) any broker, and so the
// agent's setpoint path stays as it is; both take their options from connect-options.ts. On every (re)connect it subscribes to the controls
// topic, tells the runner (alive time-outs off, auto-recovery), sends APPSYNC (the platform
// answers with the APPDEFs the edge lacks) and sends the outbox in order: up to WINDOW
// messages in flight (QoS 1), a line counts as sent when the broker acknowledged it and every
// line before it. After a lost connection everything unacknowledged is sent again (the
// platform stores each (app_id, seq) once).
import mqtt, { type MqttClient } from 'mqtt'
import { parseControlsMessage } from '../../protocol/controls-message.ts'
import { APPDEF, appState, appSync, readAppDef } from '../../protocol/controls-app-messages.ts'
import { edgeConnectOptions, type EdgeConnection } from '../connect-options.ts'
import { backOffRefusedLogins } from '../connect-retry.ts'
import type { Outbox } from './outbox.ts'
import type { AppRunner } from './runner.ts'

export interface AppLinkOptions extends EdgeConnection {
  group: string
  handle: string
  log?: (msg: string) => void
}

export interface AppLink {
  client: MqttClient
  /** Messages the broker acknowledged since the start. */
  readonly acknowledged: number
  stop(): Promise<void>
}

const WINDOW = 100

export function startAppLink(o: AppLinkOptions, runner: AppRunner, outbox: Outbox): AppLink {
  const controls = `CONTROLS/${o.group}/${o.handle}`
  const log = o.log ?? (() => {})
  const client = mqtt.connect(o.url, edgeConnectOptions(o, 'apps'))
  backOffRefusedLogins(client, log)
  let online = false
  let generation = 0
  let inflight: { done: boolean }[] = []
  let acknowledged = 0

  const pump = () => {
    while (online && inflight.length < WINDOW && inflight.length < outbox.size) {
      const line = outbox.peek(inflight.length, 1)[0]
      const slot = { done: false }
      inflight.push(slot)
      const g = generation
      client.publish(controls, line, { qos: 1 }, (err) => {
        if (err || g !== generation) return // sent again after the reconnect
        slot.done = true
        let n = 0
        while (inflight[n]?.done) n++
        if (n > 0) { inflight.splice(0, n); acknowledged += n; outbox.ack(n) }
        pump()
      })
    }
  }
  const offAppend = outbox.onAppend(pump)

  client.on('connect', () => {
    (client.stream as unknown as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true)
    client.subscribeAsync(controls, { qos: 1 }).then((granted) => {
      if (granted[0]?.qos === 128) throw new Error(`the broker refused the subscription to ${controls} (account ${o.username})`)
      online = true
      runner.connected()
      client.publish(controls, JSON.stringify(appSync(runner.inventory())), { qos: 1 })
      pump()
    }).catch((err) => log(`edge apps: ${(err as Error).message}`))
  })
  client.on('close', () => {
    if (!online) return
    online = false
    generation++
    inflight = []
    runner.disconnected()
  })
  client.on('error', (err) => log(`edge apps: ${err.message}`))
  client.on('message', (topic, payload) => {
    if (topic !== controls) return
    const parsed = parseControlsMessage(payload)
    if (!parsed.ok || parsed.message.type !== APPDEF) return
    const def = readAppDef(parsed.message)
    if (def.ok) { runner.apply(def.message); return }
    log(`edge apps: refused ${def.error}`)
    const m = parsed.message
    // Answer what can be named, so the platform shows why its definition did not run.
    if (typeof m.app_id === 'string' && m.app_id.length > 0 && m.app_id.length <= 100 && Number.isSafeInteger(m.revision) && (m.revision as number) >= 0) {
      outbox.append(appState({ app_id: m.app_id, revision: m.revision as number, state: 'Failed', reason: def.error }))
    }
  })

  return {
    client,
    get acknowledged() { return acknowledged },
    stop: async () => {
      offAppend()
      await client.endAsync()
    },
  }
}
