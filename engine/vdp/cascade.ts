// Cascade of a replay (issue 14 item 2): replayed outputs are written to the store only, not
// published on the bus, so the running virtual datapoints fed by a replayed one never see them
// live: each of those is replayed in turn, from the same start on to the newest output (a
// changed input value can change every later output, as for late data), and then the ones fed
// by it. `seen` ends cycles. One that cannot be replayed (a time trigger, a replay under way)
// is left as it is and logged.
import type { VdpRecord } from '../../catalog/virtual-datapoints.ts'
import { parseVdpConfig } from './config.ts'
import type { RangeReplayResult } from './range-replay.ts'

export interface CascadeCandidate { record: VdpRecord; reads: ReadonlySet<string> }

export interface CascadeDeps {
  isRunning(id: number): boolean
  replayOne(v: VdpRecord, start: number, end: number): Promise<RangeReplayResult>
  log: { info(obj: object, msg: string): void; warn?(obj: object, msg: string): void }
}

/** The project's virtual datapoints with the datapoints they read, listed once per replay. */
export function cascadeCandidates(project: readonly VdpRecord[]): CascadeCandidate[] {
  return project.map((d) => ({ record: d, reads: pinInputs(d) }))
}

export async function cascade(d: CascadeDeps, v: VdpRecord, start: number, candidates: readonly CascadeCandidate[], seen: Set<number>): Promise<void> {
  for (const { record: dep, reads } of candidates) {
    if (seen.has(dep.id) || !reads.has(v.dataPointID) || !d.isRunning(dep.id)) continue
    seen.add(dep.id)
    try {
      await d.replayOne(dep, start, Number.MAX_SAFE_INTEGER)
    } catch (err) {
      (d.log.warn ?? d.log.info).call(d.log, { err, vdp: dep.dataPointID, project_id: dep.project_id, fed_by: v.dataPointID }, 'replay not cascaded into a virtual datapoint fed by a replayed one')
      continue
    }
    await cascade(d, dep, start, candidates, seen)
  }
}

/** The datapoints the virtual datapoint's pins read. */
function pinInputs(v: VdpRecord): ReadonlySet<string> {
  try {
    return new Set(parseVdpConfig(v.type, { pins: v.pins, parameters: v.parameters }).pins.map((p) => p.dataPointID))
  } catch {
    return new Set() // a configuration that does not parse does not run either
  }
}
