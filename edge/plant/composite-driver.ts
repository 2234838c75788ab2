// Several field-bus drivers behind the one driver port of the agent (a building has a BACnet
// network and Modbus meters): a point belongs to the driver that has it (point ids are unique
// across the configuration, checked at start).
import { DriverRefusal, type Driver, type DriverWrite, type DriverWriteResult } from '../driver.ts'
import type { PlantDriver } from '../drivers/plant-driver.ts'

export class CompositeDriver implements Driver {
  constructor (readonly drivers: readonly PlantDriver[]) {}

  has(point: string): boolean { return this.drivers.some((d) => d.has(point)) }

  write(w: DriverWrite): Promise<DriverWriteResult> {
    const d = this.drivers.find((x) => x.has(w.point))
    if (!d) return Promise.reject(new DriverRefusal(`unknown datapoint '${w.point}' (not a point of this edge device)`))
    return d.write(w)
  }

  onPresentValue(listener: (point: string, value: number | null, atMs: number) => void): () => void {
    const offs = this.drivers.map((d) => d.onPresentValue(listener))
    return () => { for (const off of offs) off() }
  }

  async close(): Promise<void> {
    await Promise.all(this.drivers.map((d) => d.close()))
  }
}
