// Metadata messages on `META/<group>/<handle>` (spec 3): V1 and V2 schemes parsed by
// meta-message.ts, applied to the catalog in one transaction. Invalid messages and V1
// messages for unknown entities are dropped silently (the broker counts them).
// A message is applied only when the account may write the entity (issue 9, item 4): a
// datapoint inside its write reach as tagged now (a new one: untagged), so that META can
// neither touch other datapoints nor retag them into someone's TagAuth; device entities
// (whose datapoint links and tags no TagAuth covers) only with the full reach.
import type { Catalog } from '../../catalog/index.ts'
import { applyTagModes, parseMetaMessage, type MetaCommand } from '../../protocol/meta-message.ts'
import type { ReachCheck } from './reach.ts'
import type { MqttSession } from './session.ts'

export type MetaOutcome = { applied: true; entity: MetaCommand['entity'] } | { applied: false; reason: string; outsideGrant: boolean }

export class MetaMessages {
  constructor (private readonly catalog: Catalog, private readonly reach: ReachCheck) {}

  /** Applies the message, or says why it was dropped. */
  async handle(session: MqttSession, payload: Buffer): Promise<MetaOutcome> {
    const parsed = parseMetaMessage(payload)
    if (!parsed.ok) return { applied: false, reason: `invalid META message: ${parsed.error}`, outsideGrant: false }
    const { entity, tags: incoming, modes, datapoints, createIfMissing } = parsed.command
    const projectId = session.projectId
    const filter = session.reach.write
    await this.reach.ready(projectId, filter, 'write')
    if (entity.type === 'device' ? !filter.all : !this.reach.allows(projectId, filter, entity.id, 'write')) {
      return { applied: false, reason: `outside the account's write grant: ${entity.type} '${entity.id}'`, outsideGrant: true }
    }
    const applied = await this.catalog.transaction(async (tx) => {
      const tags = tx.entityTags
      const id = await tags.entity(projectId, entity.type, entity.id, createIfMissing)
      if (id === undefined) return undefined
      const current = await tags.tags(entity.type, id)
      const next = applyTagModes(current, incoming, modes)
      // Only keys this message actually set carry its source.
      const touched = incoming.filter((t) => next[t.key] === t.value).map((t) => t.key)
      await tags.replaceTags(entity.type, id, next, touched, entity.source ?? null)
      if (entity.type === 'device' && datapoints) await tags.linkDatapoints(projectId, id, datapoints)
      return { id, tags: next }
    })
    if (!applied) return { applied: false, reason: `unknown ${entity.type} '${entity.id}'`, outsideGrant: false }
    // Committed: the reach cache has it before the message is acknowledged (the catalog's
    // change reaches the other brokers).
    if (entity.type === 'datapoint') this.reach.changed(projectId, applied.id, entity.id, applied.tags)
    return { applied: true, entity }
  }
}
