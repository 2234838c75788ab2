// The agent's own status (issue 32 item 5): published as datapoints of the project (through the
// buffer, like every observation, so an outage shows in them afterwards) and written to
// state_dir/status.json for `lintel edge status`. Datapoints, under the prefix `health.prefix`
// (default `edge/<account>`):
//   <prefix>/drivers_connected      drivers with an open connection
//   <prefix>/points_polled          values read since the start (all drivers)
//   <prefix>/poll_errors            failed requests since the start
//   <prefix>/buffer_depth           observations in the buffer, not yet acknowledged
//   <prefix>/buffer_oldest_age_s    age of the oldest of them (0 when empty)
//   <prefix>/buffer_dropped         observations dropped over the buffer's bound since the start
import { renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { DiskBuffer } from '../buffer/disk-buffer.ts'
import type { PlantDriver } from '../drivers/plant-driver.ts'

export interface HealthSnapshot {
  at: string
  pid: number
  broker: { url: string; connected: boolean }
  drivers: { name: string; connected: boolean; pointsPolled: number; pollErrors: number }[]
  buffer: { depth: number; bytes: number; oldestAgeS: number; taken: number; acked: number; dropped: number; recovered: number }
}

export function snapshot(drivers: readonly PlantDriver[], buffer: DiskBuffer, broker: { url: string; connected: boolean }, nowMs: number): HealthSnapshot {
  const oldest = buffer.oldestTimeUs()
  return {
    at: new Date(nowMs).toISOString(), pid: process.pid, broker,
    drivers: drivers.map((d) => ({ name: d.name, ...d.stats() })),
    buffer: { depth: buffer.depth(), bytes: buffer.bytes(), oldestAgeS: oldest === undefined ? 0 : Math.max(0, Math.round((nowMs * 1000 - oldest) / 1e6)), ...buffer.counters },
  }
}

/** The health datapoints of a snapshot: [id, value]. */
export function healthValues(s: HealthSnapshot, prefix: string): [string, number][] {
  return [
    [`${prefix}/drivers_connected`, s.drivers.filter((d) => d.connected).length],
    [`${prefix}/points_polled`, s.drivers.reduce((n, d) => n + d.pointsPolled, 0)],
    [`${prefix}/poll_errors`, s.drivers.reduce((n, d) => n + d.pollErrors, 0)],
    [`${prefix}/buffer_depth`, s.buffer.depth],
    [`${prefix}/buffer_oldest_age_s`, s.buffer.oldestAgeS],
    [`${prefix}/buffer_dropped`, s.buffer.dropped],
  ]
}

export function writeStatus(stateDir: string, s: HealthSnapshot): void {
  const file = join(stateDir, 'status.json')
  writeFileSync(file + '.tmp', JSON.stringify(s, null, 2) + '\n')
  renameSync(file + '.tmp', file)
}
