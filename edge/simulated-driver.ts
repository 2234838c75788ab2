// A simulated BACnet-style driver (issue 11 item 4): commandable points with a 16-level
// priority array and a relinquish default, as a BACnet analog value object has them.
//   present value = the value of the most urgent non-null priority, else the relinquish default
//   a write at priority p sets slot p; null relinquishes it (clears the slot)
//   dry run: reports the array and the present value the write would give; changes nothing
//   keep out of service: the point is marked out of service, so the local automation (a
//     simulated control loop writing at priority 16, localAutomation()) can no longer overwrite
// Every real write emits the present value (also when unchanged), so a written setpoint shows
// up in the datapoint's series, stamped with the time of the shared clock (core/clock: the
// system clock in production, a virtual one in tests).
import { nowMs, systemClock, type Clock } from '../core/clock/clock.ts'
import { DriverRefusal, type Driver, type DriverWrite, type DriverWriteResult } from './driver.ts'

export const LEVELS = 16
/** The priority of the simulated local automation (BACnet: the least urgent). */
export const LOCAL_PRIORITY = 16

export interface SimulatedPoint {
  id: string
  relinquishDefault: number
  /** Values outside are refused by the device itself (a second line of defence). */
  min?: number
  max?: number
}

interface State { spec: SimulatedPoint; priority: (number | null)[]; outOfService: boolean }

export class SimulatedBacnetDriver implements Driver {
  private readonly points = new Map<string, State>()
  private readonly listeners = new Set<(point: string, value: number | null, atMs: number) => void>()

  constructor (points: Iterable<SimulatedPoint>, private readonly clock: Clock = systemClock) {
    for (const p of points) this.points.set(p.id, { spec: p, priority: new Array(LEVELS).fill(null), outOfService: false })
  }

  /** `count` points named `<prefix><n>` (1-based), relinquish default `relinquishDefault`. */
  static numbered(prefix: string, count: number, relinquishDefault = 20, clock: Clock = systemClock): SimulatedBacnetDriver {
    return new SimulatedBacnetDriver(Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i + 1}`, relinquishDefault })), clock)
  }

  has(point: string): boolean {
    return this.points.has(point)
  }

  /** The priority array (copy) and present value of a point. */
  read(point: string): { priorityArray: (number | null)[]; presentValue: number; outOfService: boolean } {
    const s = this.state(point)
    return { priorityArray: [...s.priority], presentValue: presentValue(s.priority, s.spec.relinquishDefault), outOfService: s.outOfService }
  }

  async write(w: DriverWrite): Promise<DriverWriteResult> {
    const s = this.state(w.point)
    if (!Number.isInteger(w.priority) || w.priority < 1 || w.priority > LEVELS) throw new DriverRefusal(`priority ${w.priority} is not 1..${LEVELS}`)
    if (w.value !== null && ((s.spec.min !== undefined && w.value < s.spec.min) || (s.spec.max !== undefined && w.value > s.spec.max))) {
      throw new DriverRefusal(`value ${w.value} is outside the device's range [${s.spec.min ?? '-inf'},${s.spec.max ?? 'inf'}]`)
    }
    const before = [...s.priority]
    const after = [...s.priority]
    after[w.priority - 1] = w.value
    const pv = presentValue(after, s.spec.relinquishDefault)
    const effective = w.value === null || after.findIndex((v) => v !== null) === w.priority - 1
    if (!w.dryrun) {
      s.priority = after
      if (w.keepOutOfService) s.outOfService = true
      this.emit(w.point, pv)
    }
    return { priorityArray: before, presentValue: pv, effective }
  }

  /** The simulated local control loop writes at priority 16; false when the point is out of service. */
  localAutomation(point: string, value: number | null): boolean {
    const s = this.state(point)
    if (s.outOfService) return false
    s.priority[LOCAL_PRIORITY - 1] = value
    this.emit(point, presentValue(s.priority, s.spec.relinquishDefault))
    return true
  }

  onPresentValue(listener: (point: string, value: number | null, atMs: number) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async close(): Promise<void> {
    this.listeners.clear()
  }

  private state(point: string): State {
    const s = this.points.get(point)
    if (!s) throw new DriverRefusal(`unknown datapoint '${point}' (not a point of this edge device)`)
    return s
  }

  private emit(point: string, value: number): void {
    // The driver port counts in ms (the line's time is encoded from it).
    const at = nowMs(this.clock)
    for (const l of this.listeners) l(point, value, at)
  }
}

function presentValue(priority: (number | null)[], relinquishDefault: number): number {
  for (const v of priority) if (v !== null) return v
  return relinquishDefault
}
