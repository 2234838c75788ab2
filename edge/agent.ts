// The edge agent (issue 11 item 4; DESIGN.md "edge/"): the other end of the controls
// protocol. An MQTT client over TLS, logged in with one of the project's broker accounts (write
// rights), that owns the devices behind a driver (driver.ts):
//   - subscribes to CONTROLS/<group>/<handle> (QoS 1)
//   - on NEWSPT (protocol/setpoint-messages.ts): answers SPTACK accepted, asks the driver to
//     write, then answers SPTACK written (priority array before the write, present value) or
//     refused (the reason); with acked=false it writes and answers nothing (spec 2 rule 3)
//   - publishes the driver's present values as time series on <group>/<handle> (line
//     protocol, spec 3), so a written setpoint shows up in the datapoint's series
// NEWSPT for points the driver does not own is refused when acknowledged (several agents of
// one project each answer for their own points only: an agent ignores points it does not own
// when `ownPointsOnly` is set). Other message types (its own SPTACKs echoed back) are ignored.
import mqtt, { type MqttClient } from 'mqtt'
import { isSetpointMessage, parseControlsMessage } from '../protocol/controls-message.ts'
import { encodeLine } from '../protocol/line-encoder.ts'
import { readNewSetpoint, setpointAck, type NewSetpoint, type SetpointAck } from '../protocol/setpoint-messages.ts'
import { edgeConnectOptions, type EdgeConnection } from './connect-options.ts'
import { backOffRefusedLogins } from './connect-retry.ts'
import { DriverRefusal, type Driver } from './driver.ts'
import { PointStamps } from './point-stamps.ts'

export interface EdgeAgentOptions extends EdgeConnection {
  group: string
  handle: string
  driver: Driver
  /** Ignore (do not refuse) setpoints for points the driver does not own. */
  ownPointsOnly?: boolean
  log?: (msg: string) => void
  /** Start without waiting for the broker (a buffered agent keeps collecting while it is unreachable). */
  offline?: boolean
  /** Where observation lines go instead of a direct publish (the durable buffer, issue 32). */
  sink?: (line: string) => void
}

export interface EdgeAgent {
  client: MqttClient
  /** NEWSPT handled (written, refused) since the start. */
  counters: { received: number; written: number; refused: number; published: number }
  stop(): Promise<void>
}

export async function startEdgeAgent(o: EdgeAgentOptions): Promise<EdgeAgent> {
  const controls = `CONTROLS/${o.group}/${o.handle}`
  const series = `${o.group}/${o.handle}`
  const log = o.log ?? (() => {})
  const counters = { received: 0, written: 0, refused: 0, published: 0 }
  const options = edgeConnectOptions(o)
  // (connectAsync ends the client at a refusal: a start that waits for the broker fails at once.)
  const client = o.offline ? mqtt.connect(o.url, options) : await mqtt.connectAsync(o.url, options)
  backOffRefusedLogins(client, log)
  // Controls messages are small: send them at once, not after Nagle's wait for an ACK.
  const noDelay = () => (client.stream as unknown as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true)
  if (client.connected) noDelay()
  const subscribe = async () => {
    const granted = await client.subscribeAsync(controls, { qos: 1 })
    if (granted[0]?.qos === 128) throw new Error(`the broker refused the subscription to ${controls} (account ${o.username})`)
  }
  if (client.connected) await subscribe()
  client.on('connect', () => { noDelay(); subscribe().catch((err) => log(`edge: ${err.message}`)) })

  const answer = (a: Omit<SetpointAck, 'type' | 'swop_version'>) => {
    client.publish(controls, JSON.stringify(setpointAck(a)), { qos: 1 })
  }
  const handle = async (m: NewSetpoint) => {
    if (o.ownPointsOnly && !o.driver.has(m.datapoint)) return
    counters.received++
    const base = { reference: m.reference, datapoint: m.datapoint }
    if (m.acked) answer({ ...base, result: 'accepted' })
    try {
      const r = await o.driver.write({ point: m.datapoint, value: m.value, priority: m.priority, dryrun: m.dryrun, keepOutOfService: m.keep_out_of_service })
      counters.written++
      if (m.acked) answer({ ...base, result: 'written', priorityArray: r.priorityArray, present_value: r.presentValue, effective: r.effective })
    } catch (err) {
      counters.refused++
      const reason = err instanceof DriverRefusal ? err.message : `driver error: ${(err as Error).message}`
      log(`edge: refused ${m.datapoint}: ${reason}`)
      if (m.acked) answer({ ...base, result: 'refused', reason })
    }
  }
  client.on('message', (topic, payload) => {
    if (topic !== controls) return
    const parsed = parseControlsMessage(payload)
    if (!parsed.ok || !isSetpointMessage(parsed.message)) return
    handle(readNewSetpoint(parsed.message)).catch((err) => log(`edge: ${(err as Error).message}`))
  })

  const stamps = new PointStamps()
  const off = o.driver.onPresentValue((point, value, atMs) => {
    if (value === null) return
    counters.published++
    const line = encodeLine(point, value, stamps.stamp(point, Math.round(atMs)) * 1000)
    if (o.sink) o.sink(line)
    else client.publish(series, line, { qos: 1 })
  })

  return {
    client, counters,
    stop: async () => {
      off()
      await client.endAsync()
      await o.driver.close()
    },
  }
}
