// Metadata messages on `META/<group>/<handle>` (spec 3): V1 and V2 schemes parsed by
// meta-message.ts, applied to the catalog in one transaction. Invalid messages and V1
// messages for unknown entities are dropped silently (the broker counts them).
import type { Catalog } from '../../catalog/index.ts'
import { applyTagModes, parseMetaMessage } from './meta-message.ts'

export class MetaMessages {
  constructor (private readonly catalog: Catalog) {}

  /** Applies the message; false when it was dropped. */
  handle(projectId: number, payload: Buffer): boolean {
    const parsed = parseMetaMessage(payload)
    if (!parsed.ok) return false
    const { entity, tags: incoming, modes, datapoints, createIfMissing } = parsed.command
    const tags = this.catalog.entityTags
    return this.catalog.transaction(() => {
      const id = tags.entity(projectId, entity.type, entity.id, createIfMissing)
      if (id === undefined) return false
      const current = tags.tags(entity.type, id)
      const next = applyTagModes(current, incoming, modes)
      // Only keys this message actually set carry its source.
      const touched = incoming.filter((t) => next[t.key] === t.value).map((t) => t.key)
      tags.replaceTags(entity.type, id, next, touched, entity.source ?? null)
      if (entity.type === 'device' && datapoints) tags.linkDatapoints(projectId, id, datapoints)
      return true
    })
  }
}
