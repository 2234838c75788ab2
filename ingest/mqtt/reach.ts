// The reach of an MQTT account (issue 9, item 4; DESIGN.md "MQTT accounts"): which
// datapoints of its project it may write (lines, META, setpoints) and read (what the broker
// forwards to it). The filters are its creator's, snapshotted when the account was created
// or last changed (catalog/mqtt-accounts.ts). The TagAuth matching itself is the pure rule of
// core/tag-auth.ts, the one the HTTP routes apply too, so that one function decides for HTTP
// and MQTT alike.
//
// Tag-based TagAuths need the datapoint's current tags: they come from the per-project cache
// (tag-cache.ts), which a caller loads with `ready` before it asks `allows` (synchronous, as
// aedes' authorizeForward must be). A project not loaded then (evicted) is refused.
import type { DatapointReach } from '../../catalog/mqtt-accounts.ts'
import { canAccessDatapoint, type AccessMode } from '../../core/tag-auth.ts'
import { parseLines } from '../../protocol/line-protocol.ts'
import type { DatapointTagCache, Tags } from './tag-cache.ts'

export type { AccessMode }

const NL = Buffer.from('\n')
const NO_TAGS: Record<string, string> = Object.freeze({}) as Record<string, string>

export class ReachCheck {
  constructor (private readonly tags: DatapointTagCache) {}

  /** Resolves when `allows` can answer for the project's datapoints without the catalog. */
  async ready(projectId: number, filter: DatapointReach, mode: AccessMode): Promise<void> {
    if (needsTags(filter, mode)) await this.tags.load(projectId)
  }

  allows(projectId: number, filter: DatapointReach, dataPointID: string, mode: AccessMode): boolean {
    if (filter.all) return true
    if (filter.auths.length === 0) return false
    if (!needsTags(filter, mode)) return canAccessDatapoint(filter, { dataPointID, tags: NO_TAGS }, mode)
    const tags = this.tags.peek(projectId, dataPointID)
    return tags !== undefined && canAccessDatapoint(filter, { dataPointID, tags: tags as Record<string, string> }, mode)
  }

  /** After a committed tag change of the datapoint made here (META): applied before the next check. */
  changed(projectId: number, id: number, dataPointID: string, tags: Tags): void {
    this.tags.set(projectId, id, dataPointID, tags)
  }
}

/** Whether any TagAuth of the filter that grants the mode matches on a tag (not the dataPointID). */
function needsTags(filter: DatapointReach, mode: AccessMode): boolean {
  return !filter.all && filter.auths.some((a) => a[mode] && a.key !== 'dataPointID')
}

/**
 * The lines of a time-series payload whose datapoint `keep` admits: the payload itself when
 * all good lines are kept (bad lines are kept then too, as for every subscriber), a new one
 * with only the kept lines otherwise, or null when none is kept.
 */
export function keepLines(payload: Buffer, keep: (dataPointID: string) => boolean): Buffer | null {
  const kept: Buffer[] = []
  let all = true
  let start = 0
  while (start < payload.length) {
    let nl = payload.indexOf(10, start)
    if (nl < 0) nl = payload.length
    const line = payload.subarray(start, nl)
    start = nl + 1
    let id: string | undefined
    parseLines(line, { observation: (i) => { id = i }, error: () => {} })
    if (id === undefined) continue // blank or malformed: left out of a filtered payload
    if (keep(id)) kept.push(line)
    else all = false
  }
  if (all) return payload
  if (kept.length === 0) return null
  const parts: Buffer[] = []
  for (const l of kept) parts.push(parts.length === 0 ? l : Buffer.concat([NL, l]))
  return Buffer.concat(parts)
}
