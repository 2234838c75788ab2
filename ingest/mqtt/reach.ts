// The reach of an MQTT account (issue 9, item 4; DESIGN.md "MQTT accounts"): which
// datapoints of its project it may write (lines, META, setpoints) and read (what the broker
// forwards to it). The filters are its creator's, snapshotted when the account was created
// or last changed (catalog/mqtt-accounts.ts). The TagAuth matching itself is the API's
// (api/permissions.ts canAccessDatapoint), handed in by the composition root, so that one
// function decides for HTTP and MQTT alike.
//
// Tag-based TagAuths need the datapoint's current tags: they are read from the catalog and
// cached for TAGS_TTL_MS (a tag change through META drops the entry at once; one through the
// API applies within that time).
import { LRUCache } from 'lru-cache'
import type { Catalog } from '../../catalog/index.ts'
import type { SyncDatapointTags } from '../../catalog/port.ts'
import type { DatapointReach } from '../../catalog/mqtt-accounts.ts'
import { parseLines } from '../../protocol/line-protocol.ts'

export type AccessMode = 'read' | 'write'

/** Whether the filter admits the datapoint for the mode (api/permissions.ts canAccessDatapoint). */
export type DatapointAccess = (filter: DatapointReach, dp: { dataPointID: string; tags: Record<string, string> }, mode: AccessMode) => boolean

/** Without an injected matcher only the full reach admits anything (fail closed). */
export const fullReachOnly: DatapointAccess = (filter) => filter.all

export const TAGS_TTL_MS = 2000
const NL = Buffer.from('\n')

export class ReachCheck {
  private readonly tags = new LRUCache<string, Record<string, string>>({ max: 100_000, ttl: TAGS_TTL_MS })

  private readonly tagsNow: SyncDatapointTags['datapointTagsNow']

  constructor (catalog: Catalog, private readonly access: DatapointAccess = fullReachOnly) {
    // aedes asks authorizeForward synchronously: the tags are read through the adapter's
    // synchronous capability (catalog/port.ts SyncDatapointTags), not the Promise port.
    const sync = catalog as Catalog & Partial<SyncDatapointTags>
    if (typeof sync.datapointTagsNow !== 'function') throw new Error('The MQTT reach check needs a catalog adapter that reads datapoint tags synchronously (SyncDatapointTags)')
    this.tagsNow = sync.datapointTagsNow.bind(sync)
  }

  allows(projectId: number, filter: DatapointReach, dataPointID: string, mode: AccessMode): boolean {
    if (filter.all) return true
    if (filter.auths.length === 0) return false
    const needsTags = filter.auths.some((a) => a[mode] && a.key !== 'dataPointID')
    return this.access(filter, { dataPointID, tags: needsTags ? this.tagsOf(projectId, dataPointID) : {} }, mode)
  }

  /** After a tag change of the datapoint (META). */
  forget(projectId: number, dataPointID: string): void {
    this.tags.delete(projectId + '\0' + dataPointID)
  }

  private tagsOf(projectId: number, dataPointID: string): Record<string, string> {
    const key = projectId + '\0' + dataPointID
    let t = this.tags.get(key)
    if (t === undefined) this.tags.set(key, t = this.tagsNow(projectId, dataPointID) ?? {})
    return t
  }
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
