// Sends the disk buffer's lines to the broker (issue 32 item 4): multi-line messages of up to
// `linesPerMessage` observations on the project's time-series topic, QoS 1, at most
// `inFlight` messages unacknowledged; a batch leaves the buffer only on its PUBACK (which the
// platform sends after the observations are durable, docs/mqtt.md).
//
// The order, so that catching up never starves live values:
//   - at every (re)connection the live segment is closed: everything collected until then is
//     backlog, sent oldest first; what is taken afterwards is live;
//   - live batches go first but hold at most half of the in-flight window; the backlog gets the
//     rest of the window (and all of it when nothing live waits; live gets all of it when the
//     backlog is empty). So a live value waits for at most half a window of backlog messages,
//     and the backlog still drains at most of the link's rate;
//   - within each of the two, lines keep the order in which they were taken.
// A message whose connection is lost before its PUBACK is sent again by the MQTT client on the
// next connection (mqtt.js keeps unacknowledged QoS 1 publishes); a failed publish rewinds the
// buffer to its acknowledged offsets, so its lines are sent again.
import type { MqttClient } from 'mqtt'
import type { Batch, DiskBuffer } from './disk-buffer.ts'

export interface ForwarderOptions {
  buffer: DiskBuffer
  client: MqttClient
  topic: string
  linesPerMessage: number
  inFlight: number
  log?: (msg: string) => void
}

export class Forwarder {
  private live = 0
  private backlog = 0
  private readonly off: () => void
  private stopped = false
  readonly counters = { messages: 0, lines: 0, failed: 0 }

  constructor (private readonly o: ForwarderOptions) {
    this.off = o.buffer.onData(() => this.pump())
    o.client.on('connect', this.onConnect)
    if (o.client.connected) this.onConnect()
  }

  /** Unacknowledged messages in flight. */
  inFlight(): number { return this.live + this.backlog }

  stop(): void {
    this.stopped = true
    this.off()
    this.o.client.removeListener('connect', this.onConnect)
  }

  private readonly onConnect = () => {
    this.o.buffer.rotate()
    this.pump()
  }

  private pump(): void {
    const { client, buffer, inFlight, linesPerMessage } = this.o
    const liveShare = Math.max(1, Math.floor(inFlight / 2))
    while (!this.stopped && client.connected && this.live + this.backlog < inFlight) {
      let batch: Batch | undefined
      let lane: 'live' | 'backlog' = 'live'
      if (this.live < liveShare) batch = buffer.nextBatch('live', linesPerMessage)
      if (!batch) { lane = 'backlog'; batch = buffer.nextBatch('backlog', linesPerMessage) }
      if (!batch && this.live >= liveShare) { lane = 'live'; batch = buffer.nextBatch('live', linesPerMessage) }
      if (!batch) return
      this.send(batch, lane)
    }
  }

  private send(batch: Batch, lane: 'live' | 'backlog'): void {
    this[lane]++
    this.o.client.publish(this.o.topic, batch.body, { qos: 1 }, (err) => {
      this[lane]--
      if (err) {
        this.counters.failed++
        this.o.log?.(`edge forwarder: publish failed (${err.message}); its lines are sent again`)
        this.o.buffer.rewind()
      } else {
        this.counters.messages++
        this.counters.lines += batch.lines
        this.o.buffer.ack(batch)
      }
      this.pump()
    })
  }
}
