// Time-series messages on `<group>/<handle>[/<postfix>]` (spec 3): the payload's lines name
// the series, never the topic postfix. Good lines are stored durably before the message is
// acknowledged or forwarded; bad lines are dropped, counted and logged (at most one log line
// per interval, so a misbehaving device cannot flood the log).
import type { Observation } from '../../engine/store/port.ts'
import type { DatapointResolver } from '../datapoint-resolver.ts'
import type { Ingest } from '../../engine/ingest.ts'
import { parseLines } from './line-protocol.ts'
import type { MqttSession } from './session.ts'

export interface LineLog { warn(obj: object, msg: string): void }

export class TimeseriesMessages {
  goodLines = 0
  badLines = 0
  private suppressed = 0
  private lastLog = 0

  constructor (
    private readonly resolver: DatapointResolver,
    private readonly ingest: Ingest,
    private readonly log: LineLog,
    private readonly logIntervalMs = 10_000,
  ) {}

  /** Resolves when the message's good lines are durable. */
  async handle(session: MqttSession, payload: Buffer): Promise<void> {
    const ids: string[] = []
    const obs: Observation[] = []
    const { bad } = parseLines(payload, {
      observation: (id, time, value) => { ids.push(id); obs.push({ series: 0, time, value }) },
      error: (line, reason) => this.logBadLine(session, line, reason),
    })
    this.badLines += bad
    if (ids.length === 0) return
    // Lines of datapoints the catalog refused to create (quota, identifier) are dropped and counted.
    const { series, refused, reason } = this.resolver.resolve(session.projectId, ids)
    let n = 0
    for (let i = 0; i < obs.length; i++) if (series[i] !== undefined) { obs[i].series = series[i]!; obs[n++] = obs[i] }
    obs.length = n
    if (refused > 0) { this.badLines += refused; this.logBadLine(session, 0, reason!) }
    if (n === 0) return
    await this.ingest(session.projectId, obs)
    this.goodLines += n
  }

  private logBadLine(session: MqttSession, line: number, reason: string): void {
    const now = Date.now()
    if (now - this.lastLog < this.logIntervalMs) { this.suppressed++; return }
    this.log.warn({ username: session.username, project_id: session.projectId, line, reason, suppressed_since_last: this.suppressed }, 'mqtt: line dropped')
    this.lastLog = now
    this.suppressed = 0
  }
}
