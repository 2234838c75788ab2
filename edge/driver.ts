// The driver port of the edge agent (issue 11 item 4; DESIGN.md "edge/"): what the agent needs
// from the building automation behind it. The simulated BACnet-style driver
// (simulated-driver.ts) implements it today; a real field-bus driver (BACnet/IP, Modbus) can
// be added later behind the same interface without touching the agent.

/** A write as the controls protocol asks it (NEWSPT). */
export interface DriverWrite {
  point: string
  /** null releases (relinquishes) the priority */
  value: number | null
  /** 1 (most urgent) .. 16 */
  priority: number
  /** check and report only; nothing is written */
  dryrun: boolean
  /** keep the local automation from overwriting the value (BACnet out-of-service) */
  keepOutOfService: boolean
}

export interface DriverWriteResult {
  /** The 16-level priority array BEFORE the write (index 0 = priority 1). */
  priorityArray: (number | null)[]
  /** The present value after the write (for a dry run: what it would be). */
  presentValue: number | null
  /** False when a more urgent non-null priority keeps the written one from taking effect. */
  effective: boolean
}

/** A write the device refused; `message` is the reason sent back to the platform. */
export class DriverRefusal extends Error {
  override readonly name = 'DriverRefusal'
}

export interface Driver {
  /** Whether the driver owns the point. */
  has(point: string): boolean
  /** Writes (or checks, in a dry run); throws DriverRefusal when the device refuses. */
  write(w: DriverWrite): Promise<DriverWriteResult>
  /** Present values as they change: the agent publishes them as time series. Returns the unsubscribe. */
  onPresentValue(listener: (point: string, value: number | null, atMs: number) => void): () => void
  close(): Promise<void>
}
