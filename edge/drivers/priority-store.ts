// A 16-level priority array per writable point, kept by the agent for a protocol that has none
// (Modbus; issue 32 item 3), so setpoints and controls apps behave alike on every protocol:
//   the device gets the value of the most urgent non-null level, else the relinquish default;
//   a write at level p sets slot p, null clears it.
// Persisted in one JSON file per driver (written to a temporary file, then renamed, so a kill
// leaves the old or the new file, never half of one).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'

export const LEVELS = 16

export interface PriorityState { priority: (number | null)[]; relinquishDefault: number | null }

export class PriorityStore {
  private readonly state: Record<string, PriorityState>

  constructor (private readonly file: string) {
    mkdirSync(dirname(file), { recursive: true })
    this.state = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}
  }

  get(point: string): PriorityState | undefined {
    const s = this.state[point]
    return s && { priority: [...s.priority], relinquishDefault: s.relinquishDefault }
  }

  set(point: string, s: PriorityState): void {
    this.state[point] = { priority: [...s.priority], relinquishDefault: s.relinquishDefault }
    const tmp = `${this.file}.tmp`
    writeFileSync(tmp, JSON.stringify(this.state))
    renameSync(tmp, this.file)
  }
}

/** The winning value of an array: the most urgent non-null level, else the relinquish default. */
export function winner(s: PriorityState): number | null {
  for (const v of s.priority) if (v !== null) return v
  return s.relinquishDefault
}
