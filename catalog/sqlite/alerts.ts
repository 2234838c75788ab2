// The SQLite repository of catalog/alerts.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/alerts.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import { NotFoundError } from '../../core/errors.ts'
import { type AlertRecord, type NewAlert, type AlertEvent, type AlertAck, type Transition, type OutboxEntry, type AlertRow, ALERT_SELECT, toAlert, endsAcknowledgement, notifiesWhileAcknowledged } from '../alerts.ts'

export class Alerts {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db, private readonly now: () => number = Date.now) {
    this.sql = statements(db)
  }

  async create(projectId: number, a: NewAlert): Promise<AlertRecord> {
    const id = Number(this.sql('INSERT INTO alerts (project_id, datapoint, kind, name, description, status_code, config, notification, attributes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(projectId, a.datapoint, a.kind, a.name, a.description, a.status_code, JSON.stringify(a.config), JSON.stringify(a.notification), JSON.stringify(a.attributes), this.now()).lastInsertRowid)
    return this.byId(id)
  }

  async find(id: number): Promise<AlertRecord | undefined> {
    const row = this.sql(`${ALERT_SELECT} WHERE a.id = ?`).get(id) as AlertRow | undefined
    return row && toAlert(row)
  }

  async byId(id: number): Promise<AlertRecord> {
    const a = await this.find(id)
    if (!a) throw new NotFoundError(`Alert ${id} not found`)
    return a
  }

  async listByProject(projectId: number): Promise<AlertRecord[]> {
    return (this.sql(`${ALERT_SELECT} WHERE a.project_id = ? ORDER BY a.id`).all(projectId) as AlertRow[]).map(toAlert)
  }

  /** Alerts of all projects with one of the status codes (those that run, after a restart). */
  async listByStatus(codes: readonly number[]): Promise<AlertRecord[]> {
    if (codes.length === 0) return []
    return (this.sql(`${ALERT_SELECT} WHERE a.status_code IN (${codes.map(() => '?').join(', ')}) ORDER BY a.id`).all(...codes) as AlertRow[]).map(toAlert)
  }

  async setStatus(id: number, code: number): Promise<AlertRecord> {
    this.sql('UPDATE alerts SET status_code = ? WHERE id = ?').run(code, id)
    return this.byId(id)
  }

  async remove(id: number): Promise<void> {
    this.sql('DELETE FROM alerts WHERE id = ?').run(id)
  }

  /** The checkpoint of the alert's evaluation, as the engine wrote it. */
  async state(id: number): Promise<string | undefined> {
    return this.sql('SELECT state FROM alert_state WHERE alert_id = ?').pluck().get(id) as string | undefined
  }

  async states(ids: readonly number[]): Promise<Map<number, string>> {
    const out = new Map<number, string>()
    for (const id of ids) {
      const s = this.sql('SELECT state FROM alert_state WHERE alert_id = ?').pluck().get(id) as string | undefined
      if (s !== undefined) out.set(id, s)
    }
    return out
  }

  /** Writes checkpoints of alerts that still exist (one transaction). */
  async saveStates(states: readonly { alertId: number; state: string }[]): Promise<void> {
    const put = this.sql('INSERT INTO alert_state (alert_id, state) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM alerts WHERE id = ?) ON CONFLICT (alert_id) DO UPDATE SET state = excluded.state')
    this.db.transaction(() => { for (const s of states) put.run(s.alertId, s.state, s.alertId) })()
  }

  async clearState(id: number): Promise<void> {
    this.sql('DELETE FROM alert_state WHERE alert_id = ?').run(id)
  }

  /**
   * Stores raises and resets in one transaction: each event, the checkpoint after it and one
   * outbox entry per channel (its payload built by `payload` from the stored event), so a
   * crash leaves either all of a transition or none. Transitions of deleted alerts are skipped.
   */
  async recordTransitions(list: readonly Transition[], payload: (alert: AlertRecord, event: AlertEvent, channel: string) => string): Promise<{ event: AlertEvent; outbox: OutboxEntry[] }[]> {
    const recordedAt = this.now()
    const insertEvent = this.sql('INSERT INTO alert_events (alert_id, kind, level, previous_level, value, time, recorded_at, actor, comment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
    const acked = this.sql('SELECT 1 FROM alert_acks WHERE alert_id = ?').pluck()
    const unack = this.sql('DELETE FROM alert_acks WHERE alert_id = ?')
    const putState = this.sql('INSERT INTO alert_state (alert_id, state) VALUES (?, ?) ON CONFLICT (alert_id) DO UPDATE SET state = excluded.state')
    const insertOutbox = this.sql('INSERT INTO alert_outbox (alert_id, channel, payload, created_at) VALUES (?, ?, ?, ?)')
    return this.db.transaction(() => {
      const out: { event: AlertEvent; outbox: OutboxEntry[] }[] = []
      const alerts = new Map<number, AlertRecord | undefined>()
      for (const t of list) {
        if (!alerts.has(t.alertId)) {
          const row = this.sql(`${ALERT_SELECT} WHERE a.id = ?`).get(t.alertId) as AlertRow | undefined
          alerts.set(t.alertId, row && toAlert(row))
        }
        const alert = alerts.get(t.alertId)
        if (!alert) continue
        const e = t.event
        const id = Number(insertEvent.run(t.alertId, e.kind, e.level, e.previous_level, e.value, e.time, recordedAt, e.actor ?? null, e.comment ?? null).lastInsertRowid)
        putState.run(t.alertId, t.state)
        const event: AlertEvent = { id, alert_id: t.alertId, ...e, actor: e.actor ?? null, comment: e.comment ?? null, recorded_at: recordedAt }
        const channels = notifiesWhileAcknowledged(e.kind) || acked.get(t.alertId) === undefined ? t.channels : []
        if (endsAcknowledgement(e.kind)) unack.run(t.alertId)
        const outbox = channels.map((channel) => {
          const body = payload(alert, event, channel)
          const oid = Number(insertOutbox.run(t.alertId, channel, body, recordedAt).lastInsertRowid)
          return { id: oid, alert_id: t.alertId, channel, payload: body, attempts: 0, created_at: recordedAt }
        })
        out.push({ event, outbox })
      }
      return out
    })()
  }

  /** Events of one alert, newest first, before the event id `before` (pages). */
  async events(alertId: number, opts: { limit: number; before?: number }): Promise<AlertEvent[]> {
    return this.sql('SELECT * FROM alert_events WHERE alert_id = ? AND id < ? ORDER BY id DESC LIMIT ?')
      .all(alertId, opts.before ?? Number.MAX_SAFE_INTEGER, opts.limit) as AlertEvent[]
  }

  async eventCount(alertId: number): Promise<number> {
    return this.sql('SELECT count(*) FROM alert_events WHERE alert_id = ?').pluck().get(alertId) as number
  }

  async ack(alertId: number): Promise<AlertAck | undefined> {
    return this.sql('SELECT * FROM alert_acks WHERE alert_id = ?').get(alertId) as AlertAck | undefined
  }

  async acknowledge(alertId: number, ack: { actor: string; comment: string | null; level: AlertAck['level']; time: number }, channels: readonly string[],
    payload: (alert: AlertRecord, event: AlertEvent, channel: string) => string): Promise<{ event: AlertEvent; outbox: OutboxEntry[] } | undefined> {
    const at = this.now()
    return this.db.transaction(() => {
      const row = this.sql(`${ALERT_SELECT} WHERE a.id = ?`).get(alertId) as AlertRow | undefined
      if (!row || this.sql('SELECT 1 FROM alert_acks WHERE alert_id = ?').pluck().get(alertId) !== undefined) return undefined
      const alert = toAlert(row)
      const id = Number(this.sql("INSERT INTO alert_events (alert_id, kind, level, previous_level, value, time, recorded_at, actor, comment) VALUES (?, 'ack', ?, NULL, NULL, ?, ?, ?, ?)")
        .run(alertId, ack.level, ack.time, at, ack.actor, ack.comment).lastInsertRowid)
      this.sql('INSERT INTO alert_acks (alert_id, event_id, actor, comment, level, at) VALUES (?, ?, ?, ?, ?, ?)').run(alertId, id, ack.actor, ack.comment, ack.level, at)
      const event: AlertEvent = { id, alert_id: alertId, kind: 'ack', level: ack.level, previous_level: null, value: null, time: ack.time, recorded_at: at, actor: ack.actor, comment: ack.comment }
      const ins = this.sql('INSERT INTO alert_outbox (alert_id, channel, payload, created_at) VALUES (?, ?, ?, ?)')
      const outbox = channels.map((channel) => {
        const body = payload(alert, event, channel)
        return { id: Number(ins.run(alertId, channel, body, at).lastInsertRowid), alert_id: alertId, channel, payload: body, attempts: 0, created_at: at }
      })
      return { event, outbox }
    })()
  }

  // The outbox (engine/notify/outbox.ts decides its bound and retries).

  async outboxAdd(entries: readonly { alert_id: number; channel: string; payload: string }[]): Promise<OutboxEntry[]> {
    const at = this.now()
    const ins = this.sql('INSERT INTO alert_outbox (alert_id, channel, payload, created_at) VALUES (?, ?, ?, ?)')
    return this.db.transaction(() => entries.map((e) => ({ ...e, id: Number(ins.run(e.alert_id, e.channel, e.payload, at).lastInsertRowid), attempts: 0, created_at: at })))()
  }

  /** Oldest first, after the id `after`. */
  async outboxPending(limit: number, after = 0): Promise<OutboxEntry[]> {
    return this.sql('SELECT * FROM alert_outbox WHERE id > ? ORDER BY id LIMIT ?').all(after, limit) as OutboxEntry[]
  }

  async outboxCount(): Promise<number> {
    return this.sql('SELECT count(*) FROM alert_outbox').pluck().get() as number
  }

  async outboxDelete(ids: readonly number[]): Promise<void> {
    const del = this.sql('DELETE FROM alert_outbox WHERE id = ?')
    this.db.transaction(() => { for (const id of ids) del.run(id) })()
  }

  async outboxAttempted(id: number): Promise<void> {
    this.sql('UPDATE alert_outbox SET attempts = attempts + 1 WHERE id = ?').run(id)
  }

  /** Removes the `n` oldest entries (the bound is reached) and returns them. */
  async outboxDropOldest(n: number): Promise<OutboxEntry[]> {
    const rows = this.sql('SELECT * FROM alert_outbox ORDER BY id LIMIT ?').all(n) as OutboxEntry[]
    await this.outboxDelete(rows.map((r) => r.id))
    return rows
  }
}
