// The Modbus TCP driver (issue 32 item 3) on modbus-serial's TCP client:
//   - polls the point map every poll_ms: one request per range of the poll plan (plan.ts) on
//     one connection, `pipeline` of them at a time (default 1); every value read is emitted (so a series
//     shows the device's value at the poll rate, like Telegraf's Modbus input);
//   - a lost connection is opened again at the next poll; each failed request counts a poll
//     error and its points are skipped for that poll;
//   - writes go to coils and holding registers through the agent's own 16-level priority array
//     (priority-store.ts, persisted): the winner is written to the device. The relinquish
//     default is the point's `relinquish_default`, else the device's value read before the
//     first write. `keep_out_of_service` has no Modbus meaning and is ignored.
import Modbus from 'modbus-serial'
import { nowMs, systemClock, type Clock } from '../../../core/clock/clock.ts'
import type { ModbusDriverConfig, ModbusPointConfig } from '../../config/schema.ts'
import { DriverRefusal, type DriverWrite, type DriverWriteResult } from '../../driver.ts'
import type { DriverStats, PlantDriver, PointInfo } from '../plant-driver.ts'
import { LEVELS, PriorityStore, winner } from '../priority-store.ts'
import { decode, encode } from './codec.ts'
import { pollPlan, width, type Range } from './plan.ts'

const KIND_NAMES = { coil: 'a coil', discrete: 'a discrete input', input: 'an input register', holding: 'a holding register' } as const

type Listener = (point: string, value: number | null, atMs: number) => void

export class ModbusDriver implements PlantDriver {
  readonly name: string
  // modbus-serial is CommonJS; its class is the module's `default` under Node's ESM loader.
  private readonly client = new Modbus.default()
  private readonly byId = new Map<string, ModbusPointConfig>()
  private readonly plan: Range[]
  private readonly listeners = new Set<Listener>()
  private readonly counters = { pointsPolled: 0, pollErrors: 0 }
  private queue: Promise<unknown> = Promise.resolve()
  private timer: NodeJS.Timeout | undefined
  private closed = false
  private connecting: Promise<void> | undefined

  constructor (private readonly cfg: ModbusDriverConfig, private readonly priorities: PriorityStore, private readonly clock: Clock = systemClock, private readonly log: (m: string) => void = () => {}) {
    this.name = cfg.name
    for (const p of cfg.points) this.byId.set(p.id, p)
    this.plan = pollPlan(cfg.points)
    this.client.setTimeout(cfg.timeout_ms)
  }

  async start(): Promise<void> {
    // Polls on a fixed grid (start + n × poll_ms), so late timers on a busy machine do not
    // stretch the period; a poll longer than the period starts the next one at once.
    let next = Date.now()
    const tick = async () => {
      await this.pollOnce()
      next = Math.max(next + this.cfg.poll_ms, Date.now())
      if (!this.closed) this.timer = setTimeout(tick, next - Date.now())
    }
    this.timer = setTimeout(tick, 0)
  }

  has(point: string): boolean { return this.byId.has(point) }

  points(): PointInfo[] {
    return this.cfg.points.map((p) => ({
      id: p.id,
      tags: {
        protocol: 'modbus', device: this.cfg.name, unit_id: String(p.unit_id), register: p.kind, address: String(p.address),
        ...(p.kind === 'coil' || p.kind === 'discrete' ? {} : { data_type: p.type }),
        ...(p.unit ? { unit: p.unit } : {}), ...(p.description ? { description: p.description } : {}), ...(p.writable ? { writable: 'true' } : {}),
      },
    }))
  }

  stats(): DriverStats { return { connected: this.client.isOpen, ...this.counters } }

  onPresentValue(listener: Listener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * One poll of every range; resolves when all requests answered or failed. `pipeline` ranges
   * are requested together (one round trip for all of them; 80 ranges one after another took
   * longer than the poll period on a loaded machine), and a write waits at most for one group.
   */
  async pollOnce(): Promise<void> {
    const k = this.cfg.pipeline ?? 1
    for (let i = 0; i < this.plan.length && !this.closed; i += k) {
      const group = this.plan.slice(i, i + k)
      const results = await this.request(() => Promise.allSettled(group.map((r) => this.readRange(r)))).catch((err: Error) => group.map(() => ({ status: 'rejected' as const, reason: err })))
      const at = nowMs(this.clock)
      group.forEach((r, j) => {
        const res = results[j]
        if (res.status === 'rejected') {
          this.counters.pollErrors++
          this.log(`modbus ${this.name}: reading unit ${r.unitId} ${r.kind} ${r.address}+${r.length} failed: ${(res.reason as Error).message}`)
          return
        }
        for (const p of r.points) {
          const v = res.value(p)
          this.counters.pointsPolled++
          for (const l of this.listeners) l(p.id, v, at)
        }
      })
    }
  }

  async write(w: DriverWrite): Promise<DriverWriteResult> {
    const p = this.byId.get(w.point)
    if (!p) throw new DriverRefusal(`unknown datapoint '${w.point}' (not a point of this edge device)`)
    if (!p.writable) throw new DriverRefusal(`'${w.point}' is not writable (${KIND_NAMES[p.kind]}${p.kind === 'holding' || p.kind === 'coil' ? ' without writable: true in the configuration' : ''})`)
    if (!Number.isInteger(w.priority) || w.priority < 1 || w.priority > LEVELS) throw new DriverRefusal(`priority ${w.priority} is not 1..${LEVELS}`)
    return this.request(async () => {
      const state = this.priorities.get(p.id) ?? { priority: new Array(LEVELS).fill(null), relinquishDefault: p.relinquish_default ?? null }
      if (state.relinquishDefault === null) state.relinquishDefault = (await this.readRange({ unitId: p.unit_id, kind: p.kind, address: p.address, length: width(p), points: [p] }))(p)
      const before = [...state.priority]
      state.priority[w.priority - 1] = w.value
      const value = winner(state)
      const effective = w.value === null || state.priority.findIndex((v) => v !== null) === w.priority - 1
      let regs: number[] | undefined
      if (value !== null && p.kind === 'holding') {
        try { regs = encode(value, p) } catch (err) { throw new DriverRefusal((err as Error).message) }
      }
      if (!w.dryrun) {
        this.client.setID(p.unit_id)
        if (value !== null) {
          if (p.kind === 'coil') await this.client.writeCoil(p.address, value !== 0)
          else await this.client.writeRegisters(p.address, regs!)
        }
        this.priorities.set(p.id, state)
        if (value !== null) for (const l of this.listeners) l(p.id, p.kind === 'coil' ? Number(value !== 0) : value, nowMs(this.clock))
      }
      return { priorityArray: before, presentValue: value, effective }
    })
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.timer)
    this.listeners.clear()
    await this.queue.catch(() => {})
    if (this.client.isOpen) await new Promise<void>((resolve) => this.client.close(() => resolve()))
  }

  /** Runs `fn` after the requests before it, on an open connection. */
  private request<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => { await this.connect(); return fn() })
    this.queue = run.catch(() => {})
    return run
  }

  private async connect(): Promise<void> {
    if (this.client.isOpen) return
    this.connecting ??= this.client.connectTCP(this.cfg.host, { port: this.cfg.port }).finally(() => { this.connecting = undefined })
    await this.connecting
  }

  /** Reads a range; returns the decoder of its points. */
  private async readRange(r: Range): Promise<(p: ModbusPointConfig) => number> {
    this.client.setID(r.unitId)
    if (r.kind === 'coil' || r.kind === 'discrete') {
      const res = r.kind === 'coil' ? await this.client.readCoils(r.address, r.length) : await this.client.readDiscreteInputs(r.address, r.length)
      return (p) => Number(res.data[p.address - r.address]) * p.scale + p.offset
    }
    const res = r.kind === 'holding' ? await this.client.readHoldingRegisters(r.address, r.length) : await this.client.readInputRegisters(r.address, r.length)
    return (p) => decode(res.data.slice(p.address - r.address, p.address - r.address + width(p)), p)
  }
}
