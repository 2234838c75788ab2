// Conflict detection of controls apps (issue 31 item 4): the one driver every writer of the
// edge goes through, remembering who holds each (point, priority) slot. A write to a slot
// another writer holds with a value (two apps, or an app and a manual NEWSPT, at one
// priority) is a conflict: both writers are reported, so the app runner logs it on each app
// involved. The write itself goes ahead (the device's priority array decides, as it would
// without the edge watching); null clears the slot's holder.
//   writeAs('app:<id>', w)  an app's write
//   write(w)                a manual setpoint (the agent's NEWSPT handler holds this driver)
import type { Driver, DriverWrite, DriverWriteResult } from '../driver.ts'

export const MANUAL = 'manual'

export interface Conflict { point: string; priority: number; holder: string; writer: string }

export class WriteWatch implements Driver {
  private readonly holders = new Map<string, { source: string; value: number }>()
  private readonly listeners = new Set<(c: Conflict) => void>()

  constructor (readonly inner: Driver) {}

  /** Called on every conflict; returns the unsubscribe. */
  onConflict(listener: (c: Conflict) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  has(point: string): boolean { return this.inner.has(point) }

  write(w: DriverWrite): Promise<DriverWriteResult> { return this.writeAs(MANUAL, w) }

  async writeAs(source: string, w: DriverWrite): Promise<DriverWriteResult> {
    const r = await this.inner.write(w)
    if (w.dryrun) return r
    const key = `${w.priority}\u0000${w.point}`
    const held = this.holders.get(key)
    if (held && held.source !== source) {
      const c = { point: w.point, priority: w.priority, holder: held.source, writer: source }
      for (const l of this.listeners) l(c)
    }
    if (w.value === null) this.holders.delete(key)
    else this.holders.set(key, { source, value: w.value })
    return r
  }

  /** Forgets what a writer holds (an app deleted: its slots are released or taken by others). */
  forget(source: string): void {
    for (const [k, v] of this.holders) if (v.source === source) this.holders.delete(k)
  }

  onPresentValue(listener: (point: string, value: number | null, atMs: number) => void): () => void {
    return this.inner.onPresentValue(listener)
  }

  close(): Promise<void> { return this.inner.close() }
}
