// The TagAuth matcher (spec 1, access rule 5): which datapoints a set of TagAuths names, for
// reading or writing. A pure rule, below every layer that decides access, so that the HTTP
// routes (through api/datapoint-access.ts) and the MQTT broker (ingest/mqtt/reach.ts) apply
// the same one without having it handed in.

/** One TagAuth as the rule needs it (catalog/types.ts TagAuth has these fields and an id). */
export interface TagAuthRule { key: string; value: string; read: boolean; write: boolean }

/** Which datapoints of a project a grant reaches: all, or those matched by the TagAuths. */
export interface TagAuthFilter { all: boolean; auths: readonly TagAuthRule[] }

/** What the rule reads of a datapoint: its identifier and its tags as stored now. */
export interface DatapointTags { dataPointID: string; tags: Readonly<Record<string, string>> }

export type AccessMode = 'read' | 'write'

/** Whether a TagAuth names the datapoint: `key` is `dataPointID` or a tag key; `*` matches any value. */
export function tagAuthMatches(t: TagAuthRule, dp: DatapointTags): boolean {
  const actual = t.key === 'dataPointID' ? dp.dataPointID : dp.tags[t.key]
  if (actual === undefined) return false
  return t.value === '*' || t.value === actual
}

/** Whether the filter admits the datapoint for the mode. */
export function canAccessDatapoint(f: TagAuthFilter, dp: DatapointTags, mode: AccessMode): boolean {
  return f.all || f.auths.some((t) => t[mode] && tagAuthMatches(t, dp))
}
