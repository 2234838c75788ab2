// The points' tags through META (issue 32), sent only when they changed: the agent keeps on its
// disk (state_dir/meta.json) a digest of the last META message the broker acknowledged for each
// point, and at every connection publishes META only for points whose message differs (a new
// point, a changed unit or description, another driver name). Before, every connection sent the
// META of all points: about 2 minutes at 11,000 points, the time series waiting behind them.
// META never holds back live values: at most `inFlight` META messages are unacknowledged at a
// time (the next on each PUBACK), so the forwarder's batches are written between them.
// Deleting meta.json makes the next connection send the META of every point again (a platform
// whose catalog was restored from an older backup).
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import type { MqttClient } from 'mqtt'
import type { PointInfo } from '../drivers/plant-driver.ts'

export interface MetaOptions {
  client: MqttClient
  /** META/<group>/<handle> */
  topic: string
  /** state_dir/meta.json */
  file: string
  /** every point with its driver's name (the META source) */
  points: () => { driver: string; point: PointInfo }[]
  inFlight?: number
  log?: (msg: string) => void
}

const SAVE_MS = 1000

export class MetaPublisher {
  private readonly acked: Map<string, string>
  private queue: { id: string; digest: string; body: string }[] = []
  private readonly sending = new Set<string>()
  private saveTimer: NodeJS.Timeout | undefined
  private stopped = false
  readonly counters = { published: 0, acked: 0, unchanged: 0 }

  constructor (private readonly o: MetaOptions) {
    this.acked = new Map(Object.entries(this.load()))
    o.client.on('connect', this.onConnect)
    if (o.client.connected) this.onConnect()
  }

  /** META messages waiting or unacknowledged. */
  pending(): number { return this.queue.length + this.sending.size }

  stop(): void {
    this.stopped = true
    this.o.client.removeListener('connect', this.onConnect)
    this.save()
  }

  private readonly onConnect = () => {
    this.queue = []
    let unchanged = 0
    for (const { driver, point } of this.o.points()) {
      const body = JSON.stringify({ entity: { id: point.id, type: 'datapoint', source: `edge:${driver}` }, mode: ['add', 'update'], tags: Object.entries(point.tags).map(([key, value]) => ({ key, value })) })
      const digest = createHash('sha256').update(body).digest('base64url').slice(0, 22)
      if (this.acked.get(point.id) === digest) unchanged++
      else if (!this.sending.has(point.id)) this.queue.push({ id: point.id, digest, body })
    }
    this.counters.unchanged = unchanged
    if (this.queue.length > 0) this.o.log?.(`edge: META of ${this.queue.length} point(s) to publish (${unchanged} unchanged since the broker acknowledged them)`)
    this.pump()
  }

  private pump(): void {
    const max = this.o.inFlight ?? 8
    while (!this.stopped && this.o.client.connected && this.sending.size < max && this.queue.length > 0) {
      const m = this.queue.shift()!
      this.sending.add(m.id)
      this.counters.published++
      this.o.client.publish(this.o.topic, m.body, { qos: 1 }, (err) => {
        this.sending.delete(m.id)
        if (err) return // sent again at the next connection (the digest is not recorded)
        this.counters.acked++
        this.acked.set(m.id, m.digest)
        if (this.stopped) return // saved at stop; a late acknowledgement is published again next time
        this.saveSoon()
        this.pump()
      })
    }
  }

  private load(): Record<string, string> {
    if (!existsSync(this.o.file)) return {}
    try {
      return (JSON.parse(readFileSync(this.o.file, 'utf8')) as { digests?: Record<string, string> }).digests ?? {}
    } catch (err) {
      this.o.log?.(`edge: ${this.o.file} unreadable (${(err as Error).message}); META of every point is published again`)
      return {}
    }
  }

  private saveSoon(): void {
    this.saveTimer ??= setTimeout(() => this.save(), SAVE_MS)
  }

  /** Written whole through a temporary file: a crash leaves the old or the new digests. */
  private save(): void {
    clearTimeout(this.saveTimer)
    this.saveTimer = undefined
    try {
      writeFileSync(this.o.file + '.tmp', JSON.stringify({ digests: Object.fromEntries(this.acked) }))
      renameSync(this.o.file + '.tmp', this.o.file)
    } catch (err) {
      // Not fatal: the points whose digests are lost get their META published again.
      this.o.log?.(`edge: cannot save the META digests to ${this.o.file}: ${(err as Error).message}`)
    }
  }
}
