// Time-series messages on `<group>/<handle>[/<postfix>]` (spec 3): the payload's lines name
// the series, never the topic postfix. Good lines for datapoints inside the account's write
// reach (reach.ts) are stored durably before the message is acknowledged or forwarded; bad
// lines and lines outside the reach are dropped and counted, and the reason is logged
// (refusal-log.ts).
// Tag sets of lines (spec 3, line format rule 4) are stored as dynamic, time-dependent tags
// (catalog/series-tags.ts: changes only, bounded) once the observations are durable and
// before the acknowledgement; changes over a bound are counted and logged, not stored.
import type { Observation } from '../../engine/store/port.ts'
import type { DatapointResolver } from '../datapoint-resolver.ts'
import type { Ingest } from '../../engine/ingest-port.ts'
import { parseLines, parseTagSet } from '../../protocol/line-protocol.ts'
import type { TaggedObservation, TagRecordResult } from '../../catalog/series-tags.ts'
import type { ReachCheck } from './reach.ts'
import type { RefusalLog } from './refusal-log.ts'
import type { MqttSession } from './session.ts'

export interface LineCounts { stored: number; bad: number; outside: number; tagsStored: number; tagsOverLimit: number }

/** Where tag sets go (the catalog's SeriesTags). */
export interface TagRecorder {
  record(projectId: number, observations: readonly TaggedObservation[]): Promise<TagRecordResult>
}

export class TimeseriesMessages {
  constructor (
    private readonly resolver: DatapointResolver,
    private readonly ingest: Ingest,
    private readonly reach: ReachCheck,
    private readonly refusals: RefusalLog,
    private readonly tags: TagRecorder,
  ) {}

  /** Resolves when the message's good lines are durable. */
  async handle(session: MqttSession, topic: string, payload: Buffer): Promise<LineCounts> {
    const ids: string[] = []
    const obs: Observation[] = []
    const tagTexts: (string | undefined)[] = []
    let outside = 0
    let firstOutside = ''
    let firstBad = ''
    const filter = session.reach.write
    await this.reach.ready(session.projectId, filter, 'write')
    const { bad } = parseLines(payload, {
      observation: (id, time, value, tags) => {
        if (!this.reach.allows(session.projectId, filter, id, 'write')) {
          if (outside++ === 0) firstOutside = id
          return
        }
        ids.push(id)
        obs.push({ series: 0, time, value })
        tagTexts.push(tags)
      },
      error: (line, reason) => { if (firstBad === '') firstBad = `line ${line}: ${reason}` },
    })
    if (bad > 0) this.refusals.refused(session, topic, `malformed lines: ${bad} dropped, first ${firstBad}`, 'mqtt: lines dropped')
    if (outside > 0) {
      this.refusals.refused(session, topic, `outside the account's write grant: ${outside} line(s) dropped, first for datapoint '${firstOutside}'`, 'mqtt: lines dropped')
    }
    if (ids.length === 0) return { stored: 0, bad, outside, tagsStored: 0, tagsOverLimit: 0 }
    // Lines of datapoints the catalog refused to create (quota, identifier) are dropped and counted.
    const { series, refused, reason } = await this.resolver.resolve(session.projectId, ids)
    let n = 0
    const tagged: TaggedObservation[] = []
    for (let i = 0; i < obs.length; i++) {
      if (series[i] === undefined) continue
      obs[i].series = series[i]!
      const text = tagTexts[i]
      if (text !== undefined) tagged.push({ series: obs[i].series, time: obs[i].time, tags: parseTagSet(text) })
      obs[n++] = obs[i]
    }
    obs.length = n
    if (refused > 0) this.refusals.refused(session, topic, `refused by the catalog: ${refused} line(s) dropped (${reason})`, 'mqtt: lines dropped')
    if (n > 0) await this.ingest(session.projectId, obs)
    const t = tagged.length > 0 ? await this.tags.record(session.projectId, tagged) : { stored: 0, overflow: 0 }
    if (t.overflow > 0) {
      this.refusals.refused(session, topic, `tag changes over the limit (per series or per project): ${t.overflow} not stored`, 'mqtt: tags dropped')
    }
    return { stored: n, bad: bad + refused, outside, tagsStored: t.stored, tagsOverLimit: t.overflow }
  }
}
