// The BACnet/IP driver (issue 32 item 2) on @bacnet-js/client, one device per driver, unicast:
//   - present values by COV where the device accepts SubscribeCOV (unconfirmed notifications,
//     renewed at half the lifetime, so a subscription never lapses while the agent runs); a
//     refused or failed subscription puts the point on polling, and the next renewal tries
//     again;
//   - polling (and the first read of every point): ReadPropertyMultiple in batches of 20
//     objects, ReadProperty per point when the device does not support it;
//   - writes: the priority array is read first (the setpoint log's "before"), then
//     WriteProperty of the present value at the requested priority (NULL relinquishes), then
//     the present value is read back. A device error is a refusal with its class and code.
//     `keep_out_of_service` is not applied (the simulated driver's notion; a real output would
//     be decoupled from its process); dry runs read and compute only.
import bacnet from '@bacnet-js/client'
import { nowMs, systemClock, type Clock } from '../../../core/clock/clock.ts'
import type { BacnetDriverConfig, BacnetPointConfig } from '../../config/schema.ts'
import { DriverRefusal, type DriverWrite, type DriverWriteResult } from '../../driver.ts'
import type { DriverStats, PlantDriver, PointInfo } from '../plant-driver.ts'
import { BINARY_TYPES, OBJECT_TYPES, PROP, TAG } from './vocabulary.ts'

type Listener = (point: string, value: number | null, atMs: number) => void
type Client = InstanceType<typeof bacnet.default>
const ALL = 0xffffffff
const BATCH = 20
/**
 * Receive buffer asked for the agent's UDP socket. COV notifications are unconfirmed datagrams:
 * a device that changes 1,000 objects at once sends 1,000 of them back to back, and Linux's
 * default buffer (rmem_default, 208 KiB ≈ 300 small datagrams) dropped two thirds of them in
 * bench:edge-plant (RcvbufErrors in /proc/net/snmp). The kernel caps it at net.core.rmem_max.
 */
export const RECV_BUFFER_BYTES = 4 << 20

/** The number of a BACnet application value (enumerated/boolean as 0/1), null for NULL. */
export function numberOf(v: { type: number; value: unknown } | undefined): number | null {
  if (!v || v.type === TAG.NULL || v.value === null || v.value === undefined) return null
  if (typeof v.value === 'boolean') return v.value ? 1 : 0
  const n = Number(v.value)
  return Number.isFinite(n) ? n : null
}

export class BacnetDriver implements PlantDriver {
  readonly name: string
  private readonly client: Client
  private readonly receiver: { address: string }
  private readonly byId = new Map<string, BacnetPointConfig>()
  private readonly byObject = new Map<string, BacnetPointConfig>()
  private readonly covered = new Set<string>()
  private readonly listeners = new Set<Listener>()
  private readonly counters = { pointsPolled: 0, pollErrors: 0 }
  private lastOk = false
  private rpm = true
  private timers: NodeJS.Timeout[] = []
  private closed = false

  constructor (private readonly cfg: BacnetDriverConfig, private readonly clock: Clock = systemClock, private readonly log: (m: string) => void = () => {}) {
    this.name = cfg.name
    this.receiver = { address: cfg.address }
    for (const p of cfg.points) { this.byId.set(p.id, p); this.byObject.set(`${p.object_type}:${p.instance}`, p) }
    this.client = new bacnet.default({ port: cfg.local_port, apduTimeout: 3000 })
    this.client.on('error', (err) => this.log(`bacnet ${this.name}: ${err.message}`))
    this.client.on('listening', () => this.enlargeReceiveBuffer())
    this.client.on('covNotifyUnconfirmed', (c) => {
      const { monitoredObjectId: o, values } = c.payload
      const p = this.byObject.get(`${o.type}:${o.instance}`)
      const pv = values.find((v: { property: { id: number } }) => v.property.id === PROP.PRESENT_VALUE)
      if (p && pv) this.emit(p, numberOf(pv.value[0] as never))
    })
  }

  async start(): Promise<void> {
    if (this.cfg.cov) {
      await this.subscribeAll()
      if (this.closed) return // closed while subscribing: no timers after close()
      this.timers.push(setInterval(() => { this.subscribeAll().catch(() => {}) }, this.cfg.cov_lifetime_s * 500))
    }
    const poll = async () => {
      await this.pollOnce(this.cfg.points.filter((p) => !this.covered.has(p.id)))
      if (!this.closed) this.timers.push(setTimeout(poll, this.cfg.poll_ms))
    }
    await this.pollOnce(this.cfg.points) // every point once, the COV ones too
    if (!this.closed) this.timers.push(setTimeout(poll, this.cfg.poll_ms))
  }

  has(point: string): boolean { return this.byId.has(point) }

  points(): PointInfo[] {
    return this.cfg.points.map((p) => ({
      id: p.id,
      tags: {
        protocol: 'bacnet', device: this.cfg.name, device_instance: String(this.cfg.device_instance), object_type: OBJECT_TYPES[p.object_type], instance: String(p.instance),
        ...(p.unit ? { unit: p.unit } : {}), ...(p.description ? { description: p.description } : {}), ...(p.writable ? { writable: 'true' } : {}),
      },
    }))
  }

  stats(): DriverStats { return { connected: this.lastOk, ...this.counters } }

  /** Points on COV (the others are polled). */
  covPoints(): string[] { return [...this.covered] }

  onPresentValue(listener: Listener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async pollOnce(points: BacnetPointConfig[]): Promise<void> {
    for (let i = 0; i < points.length && !this.closed; i += BATCH) {
      const batch = points.slice(i, i + BATCH)
      try {
        if (this.rpm) {
          try {
            const res = await this.client.readPropertyMultiple(this.receiver, batch.map((p) => ({ objectId: this.oid(p), properties: [{ id: PROP.PRESENT_VALUE, index: ALL }] })))
            for (const r of res.values) {
              const p = this.byObject.get(`${r.objectId.type}:${r.objectId.instance}`)
              const v = r.values[0]?.value?.[0] as { type: number; value: unknown } | undefined
              if (p && v && v.type !== 105) this.emit(p, numberOf(v))
            }
            this.lastOk = true
            continue
          } catch (err) {
            if (!/BacnetError|BacnetReject|BacnetAbort/.test((err as Error).message)) throw err
            this.rpm = false
            this.log(`bacnet ${this.name}: ReadPropertyMultiple refused (${(err as Error).message}); reading property by property`)
          }
        }
        for (const p of batch) {
          const r = await this.client.readProperty(this.receiver, this.oid(p), PROP.PRESENT_VALUE)
          this.emit(p, numberOf(r.values[0] as never))
        }
        this.lastOk = true
      } catch (err) {
        this.counters.pollErrors++
        this.lastOk = false
        this.log(`bacnet ${this.name}: reading ${batch.length} object(s) failed: ${(err as Error).message}`)
      }
    }
  }

  async write(w: DriverWrite): Promise<DriverWriteResult> {
    const p = this.byId.get(w.point)
    if (!p) throw new DriverRefusal(`unknown datapoint '${w.point}' (not a point of this edge device)`)
    if (!p.writable) throw new DriverRefusal(`'${w.point}' is not writable (not marked writable in the configuration)`)
    if (!Number.isInteger(w.priority) || w.priority < 1 || w.priority > 16) throw new DriverRefusal(`priority ${w.priority} is not 1..16`)
    const before = await this.device(() => this.client.readProperty(this.receiver, this.oid(p), PROP.PRIORITY_ARRAY), 'reading the priority array')
    const priorityArray = before.values.map((v) => numberOf(v as never))
    const after = [...priorityArray]
    after[w.priority - 1] = w.value
    const effective = w.value === null || after.findIndex((v) => v !== null) === w.priority - 1
    if (w.dryrun) {
      const rd = after.find((v) => v !== null) ?? numberOf((await this.device(() => this.client.readProperty(this.receiver, this.oid(p), PROP.RELINQUISH_DEFAULT), 'reading the relinquish default')).values[0] as never)
      return { priorityArray, presentValue: rd ?? null, effective }
    }
    const value = w.value === null ? { type: TAG.NULL, value: null } : BINARY_TYPES.has(p.object_type) ? { type: TAG.ENUMERATED, value: w.value ? 1 : 0 } : { type: TAG.REAL, value: w.value }
    await this.device(() => this.client.writeProperty(this.receiver, this.oid(p), PROP.PRESENT_VALUE, [value as never], { priority: w.priority }), 'WriteProperty')
    const pv = numberOf((await this.device(() => this.client.readProperty(this.receiver, this.oid(p), PROP.PRESENT_VALUE), 'reading the present value')).values[0] as never)
    this.emit(p, pv)
    return { priorityArray, presentValue: pv, effective }
  }

  async close(): Promise<void> {
    this.closed = true
    for (const t of this.timers) clearTimeout(t)
    this.listeners.clear()
    this.client.close()
  }

  /** The library does not expose its socket: reached through its transport (checked, so a
   *  library change only loses the larger buffer, logged). */
  private enlargeReceiveBuffer(): void {
    const socket = (this.client as unknown as { _transport?: { _server?: { setRecvBufferSize?: (n: number) => void; getRecvBufferSize?: () => number } } })._transport?._server
    try {
      socket!.setRecvBufferSize!(RECV_BUFFER_BYTES)
      const got = socket!.getRecvBufferSize!()
      // Linux reports twice the size it was asked (its bookkeeping); below the request means rmem_max capped it.
      if (got < RECV_BUFFER_BYTES) this.log(`bacnet ${this.name}: UDP receive buffer ${got} bytes (net.core.rmem_max caps it; raise it to ${RECV_BUFFER_BYTES} so bursts of COV notifications are not dropped)`)
    } catch (err) {
      this.log(`bacnet ${this.name}: cannot enlarge the UDP receive buffer (${(err as Error).message}); bursts of COV notifications may be dropped`)
    }
  }

  private oid(p: BacnetPointConfig) { return { type: p.object_type, instance: p.instance } }

  private emit(p: BacnetPointConfig, v: number | null): void {
    this.counters.pointsPolled++
    const at = nowMs(this.clock)
    for (const l of this.listeners) l(p.id, v, at)
  }

  /** A device request; its errors become refusals naming what failed. */
  private async device<T>(fn: () => Promise<T>, what: string): Promise<T> {
    try {
      return await fn()
    } catch (err) {
      throw new DriverRefusal(`the BACnet device refused ${what}: ${(err as Error).message}`)
    }
  }

  private async subscribeAll(): Promise<void> {
    let i = 0
    for (const p of this.cfg.points) {
      if (this.closed) return
      const processId = ++i
      try {
        await this.client.subscribeCov(this.receiver, this.oid(p), processId, false, false, this.cfg.cov_lifetime_s)
        this.covered.add(p.id)
        this.lastOk = true
      } catch (err) {
        if (this.covered.delete(p.id) || !/Code:45|BacnetError/.test((err as Error).message)) {
          this.counters.pollErrors++
          this.log(`bacnet ${this.name}: COV subscription of ${OBJECT_TYPES[p.object_type]}:${p.instance} failed (${(err as Error).message}); polled`)
        }
      }
    }
  }
}
