// The PostgreSQL repositories of what the engine's runtimes keep: virtual datapoints with
// their status log, alerts with their events and outbox, setpoint bounds and operations.
// Same behaviour as catalog/sqlite/ (the contract suite holds both); rules, texts and row
// mappers come from the port's modules (catalog/alerts.ts, setpoints.ts, virtual-datapoints.ts).
import { InvalidInputError, NotFoundError } from '../../core/errors.ts'
import { identifierProblem } from '../../core/identifier.ts'
import { ALERT_SELECT, endsAcknowledgement, notifiesWhileAcknowledged, toAlert, type AlertAck, type AlertEvent, type AlertRecord, type AlertRow, type OutboxEntry } from '../alerts.ts'
import type { AlertsPort, SetpointsPort, VirtualDatapointsPort } from '../port.ts'
import { BOUNDS_OF_PROJECT, boundsById, DEFAULT_MAX_PRIORITY, toOperation, type SetpointOperation, type SetpointRow, type WriteBounds } from '../setpoints.ts'
import { nowNs, toVdp, vdpExists, type VdpRow } from '../virtual-datapoints.ts'
import { conflictsAs, type Sql } from './sql.ts'

export function virtualDatapoints(sql: Sql, now: () => number = Date.now): VirtualDatapointsPort {
  const find = async (projectId: number, dataPointID: string) => {
    const row = await sql.one<VdpRow>('SELECT * FROM virtual_datapoints WHERE project_id = ? AND datapoint_id = ?', projectId, dataPointID)
    return row && toVdp(row)
  }
  const byIdIn = async (q: Sql, id: number) => {
    const row = await q.one<VdpRow>('SELECT * FROM virtual_datapoints WHERE id = ?', id)
    if (!row) throw new NotFoundError(`Virtual datapoint ${id} not found`)
    return toVdp(row)
  }
  const log = (q: Sql, id: number, code: number, message: string) =>
    q.run('INSERT INTO vdp_logs (vdp, ts, status_code, message) VALUES (?, ?, ?, ?)', id, nowNs(now()), code, message)
  return {
    create: async (projectId, v, message) => {
      const problem = identifierProblem(v.dataPointID)
      if (problem) throw new InvalidInputError(`Refused: ${problem}`)
      if (await find(projectId, v.dataPointID)) throw vdpExists(projectId, v.dataPointID)
      return conflictsAs(sql.atomic(async (q) => {
        const id = (await q.value<number>(`INSERT INTO virtual_datapoints (project_id, datapoint_id, type, description, pins, parameters, status_code, created_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, projectId, v.dataPointID, v.type, v.description, JSON.stringify(v.pins), JSON.stringify(v.parameters), v.status_code, now()))!
        await log(q, id, v.status_code, message)
        return byIdIn(q, id)
      }), { virtual_datapoints_project_id_datapoint_id_key: () => vdpExists(projectId, v.dataPointID) })
    },
    find,
    get: async (projectId, dataPointID) => (await find(projectId, dataPointID)) ?? Promise.reject(new NotFoundError(`Virtual datapoint '${dataPointID}' not found in project ${projectId}`)),
    byId: (id) => byIdIn(sql, id),
    listByProject: async (projectId) => (await sql.rows<VdpRow>('SELECT * FROM virtual_datapoints WHERE project_id = ? ORDER BY datapoint_id COLLATE "C"', projectId)).map(toVdp),
    listByStatus: async (codes) => (codes.length === 0 ? [] : (await sql.rows<VdpRow>('SELECT * FROM virtual_datapoints WHERE status_code = ANY(?::int[]) ORDER BY id', [...codes])).map(toVdp)),
    setStatus: (id, code, message) => sql.atomic(async (q) => {
      await q.run('UPDATE virtual_datapoints SET status_code = ? WHERE id = ?', code, id)
      await log(q, id, code, message)
      return byIdIn(q, id)
    }),
    setDescription: async (id, description) => {
      await sql.run('UPDATE virtual_datapoints SET description = ? WHERE id = ?', description, id)
      return byIdIn(sql, id)
    },
    remove: async (id) => { await sql.run('DELETE FROM virtual_datapoints WHERE id = ?', id) },
    logs: async (id) => (await sql.rows<{ ts: string; status_code: number; message: string }>('SELECT ts, status_code, message FROM vdp_logs WHERE vdp = ? ORDER BY seq', id))
      .map((l) => ({ message: l.message, status_code: l.status_code, ts: l.ts, type: 'status_change' as const })),
  }
}

export function alerts(sql: Sql, now: () => number = Date.now): AlertsPort {
  const find = async (q: Sql, id: number) => {
    const row = await q.one<AlertRow>(`${ALERT_SELECT} WHERE a.id = ?`, id)
    return row && toAlert(row)
  }
  const addOutbox = (q: Sql, alertId: number, channel: string, payload: string, at: number) =>
    q.value<number>('INSERT INTO alert_outbox (alert_id, channel, payload, created_at) VALUES (?, ?, ?, ?) RETURNING id', alertId, channel, payload, at) as Promise<number>
  const put = 'INSERT INTO alert_state (alert_id, state) VALUES (?, ?) ON CONFLICT (alert_id) DO UPDATE SET state = excluded.state'
  return {
    create: async (projectId, a) => {
      const id = (await sql.value<number>(`INSERT INTO alerts (project_id, datapoint, kind, name, description, status_code, config, notification, attributes, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, projectId, a.datapoint, a.kind, a.name, a.description, a.status_code,
      JSON.stringify(a.config), JSON.stringify(a.notification), JSON.stringify(a.attributes), now()))!
      return (await find(sql, id))!
    },
    find: (id) => find(sql, id),
    byId: async (id) => (await find(sql, id)) ?? Promise.reject(new NotFoundError(`Alert ${id} not found`)),
    listByProject: async (projectId) => (await sql.rows<AlertRow>(`${ALERT_SELECT} WHERE a.project_id = ? ORDER BY a.id`, projectId)).map(toAlert),
    listByStatus: async (codes) => (codes.length === 0 ? [] : (await sql.rows<AlertRow>(`${ALERT_SELECT} WHERE a.status_code = ANY(?::int[]) ORDER BY a.id`, [...codes])).map(toAlert)),
    setStatus: async (id, code) => {
      await sql.run('UPDATE alerts SET status_code = ? WHERE id = ?', code, id)
      return (await find(sql, id)) ?? Promise.reject(new NotFoundError(`Alert ${id} not found`))
    },
    remove: async (id) => { await sql.run('DELETE FROM alerts WHERE id = ?', id) },
    state: (id) => sql.value<string>('SELECT state FROM alert_state WHERE alert_id = ?', id),
    states: async (ids) => new Map((await sql.rows<{ alert_id: number; state: string }>('SELECT alert_id, state FROM alert_state WHERE alert_id = ANY(?::bigint[])', [...ids]))
      .map((r) => [r.alert_id, r.state])),
    saveStates: (states) => sql.atomic(async (q) => {
      for (const s of states) {
        await q.run('INSERT INTO alert_state (alert_id, state) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM alerts WHERE id = ?) ON CONFLICT (alert_id) DO UPDATE SET state = excluded.state',
          s.alertId, s.state, s.alertId)
      }
    }),
    clearState: async (id) => { await sql.run('DELETE FROM alert_state WHERE alert_id = ?', id) },
    recordTransitions: (list, payload) => sql.atomic(async (q) => {
      const recordedAt = now()
      const out: { event: AlertEvent; outbox: OutboxEntry[] }[] = []
      const known = new Map<number, AlertRecord | undefined>()
      for (const t of list) {
        if (!known.has(t.alertId)) known.set(t.alertId, await find(q, t.alertId))
        const alert = known.get(t.alertId)
        if (!alert) continue // deleted meanwhile
        const e = t.event
        const id = (await q.value<number>('INSERT INTO alert_events (alert_id, kind, level, previous_level, value, time, recorded_at, actor, comment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id',
          t.alertId, e.kind, e.level, e.previous_level, e.value, e.time, recordedAt, e.actor ?? null, e.comment ?? null))!
        await q.run(put, t.alertId, t.state)
        const event: AlertEvent = { id, alert_id: t.alertId, ...e, actor: e.actor ?? null, comment: e.comment ?? null, recorded_at: recordedAt }
        const channels = notifiesWhileAcknowledged(e.kind) || (await q.value<number>('SELECT 1 FROM alert_acks WHERE alert_id = ?', t.alertId)) === undefined ? t.channels : []
        if (endsAcknowledgement(e.kind)) await q.run('DELETE FROM alert_acks WHERE alert_id = ?', t.alertId)
        const outbox: OutboxEntry[] = []
        for (const channel of channels) {
          const body = payload(alert, event, channel)
          outbox.push({ id: await addOutbox(q, t.alertId, channel, body, recordedAt), alert_id: t.alertId, channel, payload: body, attempts: 0, created_at: recordedAt })
        }
        out.push({ event, outbox })
      }
      return out
    }),
    events: (alertId, opts) => sql.rows<AlertEvent>('SELECT * FROM alert_events WHERE alert_id = ? AND id < ? ORDER BY id DESC LIMIT ?', alertId, opts.before ?? Number.MAX_SAFE_INTEGER, opts.limit),
    eventCount: async (alertId) => (await sql.value<number>('SELECT count(*) FROM alert_events WHERE alert_id = ?', alertId))!,
    ack: (alertId) => sql.one<AlertAck>('SELECT * FROM alert_acks WHERE alert_id = ?', alertId),
    acknowledge: (alertId, ack, channels, payload) => sql.atomic(async (q) => {
      const alert = await find(q, alertId)
      if (!alert) return undefined
      await q.run('SELECT id FROM alerts WHERE id = ? FOR UPDATE', alertId) // two acknowledgements at once: one wins
      if ((await q.value<number>('SELECT 1 FROM alert_acks WHERE alert_id = ?', alertId)) !== undefined) return undefined
      const at = now()
      const id = (await q.value<number>("INSERT INTO alert_events (alert_id, kind, level, previous_level, value, time, recorded_at, actor, comment) VALUES (?, 'ack', ?, NULL, NULL, ?, ?, ?, ?) RETURNING id",
        alertId, ack.level, ack.time, at, ack.actor, ack.comment))!
      await q.run('INSERT INTO alert_acks (alert_id, event_id, actor, comment, level, at) VALUES (?, ?, ?, ?, ?, ?)', alertId, id, ack.actor, ack.comment, ack.level, at)
      const event: AlertEvent = { id, alert_id: alertId, kind: 'ack', level: ack.level, previous_level: null, value: null, time: ack.time, recorded_at: at, actor: ack.actor, comment: ack.comment }
      const outbox: OutboxEntry[] = []
      for (const channel of channels) {
        const body = payload(alert, event, channel)
        outbox.push({ id: await addOutbox(q, alertId, channel, body, at), alert_id: alertId, channel, payload: body, attempts: 0, created_at: at })
      }
      return { event, outbox }
    }),
    outboxAdd: (entries) => sql.atomic(async (q) => {
      const at = now()
      const out: OutboxEntry[] = []
      for (const e of entries) out.push({ ...e, id: await addOutbox(q, e.alert_id, e.channel, e.payload, at), attempts: 0, created_at: at })
      return out
    }),
    outboxPending: (limit, after = 0) => sql.rows<OutboxEntry>('SELECT * FROM alert_outbox WHERE id > ? ORDER BY id LIMIT ?', after, limit),
    outboxCount: async () => (await sql.value<number>('SELECT count(*) FROM alert_outbox'))!,
    outboxDelete: async (ids) => { if (ids.length > 0) await sql.run('DELETE FROM alert_outbox WHERE id = ANY(?::bigint[])', [...ids]) },
    outboxAttempted: async (id) => { await sql.run('UPDATE alert_outbox SET attempts = attempts + 1 WHERE id = ?', id) },
    outboxDropOldest: async (n) => (await sql.rows<OutboxEntry>('DELETE FROM alert_outbox WHERE id IN (SELECT id FROM alert_outbox ORDER BY id LIMIT ?) RETURNING *', n))
      .sort((a, b) => a.id - b.id),
  }
}

export function setpoints(sql: Sql): SetpointsPort {
  const find = async (reference: string) => {
    const row = await sql.one<SetpointRow>('SELECT * FROM setpoint_operations WHERE reference = ?', reference)
    return row && toOperation(row)
  }
  const get = async (reference: string) => (await find(reference)) ?? Promise.reject(new NotFoundError(`Setpoint operation '${reference}' not found`))
  const settings = async (projectId: number) => {
    const row = await sql.one<{ enabled: number; max_priority: number }>('SELECT enabled, max_priority FROM project_setpoints WHERE project_id = ?', projectId)
    return { project_id: projectId, enabled: row?.enabled === 1, max_priority: row?.max_priority ?? DEFAULT_MAX_PRIORITY }
  }
  const open = "(status = 'initialized' OR (status = 'requested' AND deadline IS NOT NULL))"
  return {
    settings,
    setSettings: async (projectId, change) => {
      if (change.maxPriority !== undefined && !(Number.isInteger(change.maxPriority) && change.maxPriority >= 1 && change.maxPriority <= 16)) {
        throw new InvalidInputError(`The maximum setpoint priority must be an integer from 1 (most urgent) to 16, got ${change.maxPriority}`)
      }
      if (!(await sql.one('SELECT 1 FROM projects WHERE id = ?', projectId))) throw new NotFoundError(`Project ${projectId} not found`)
      const enabled = change.enabled === undefined ? null : change.enabled ? 1 : 0
      const max = change.maxPriority ?? null
      await sql.run(`INSERT INTO project_setpoints (project_id, enabled, max_priority) VALUES (?, COALESCE(?::int, 0), COALESCE(?::int, ${DEFAULT_MAX_PRIORITY}))
        ON CONFLICT (project_id) DO UPDATE SET enabled = COALESCE(?::int, project_setpoints.enabled), max_priority = COALESCE(?::int, project_setpoints.max_priority)`,
      projectId, enabled, max, enabled, max)
      return settings(projectId)
    },
    bounds: (projectId, dataPointID) => sql.one<WriteBounds>(`SELECT b.setpoint_min_value, b.setpoint_max_value FROM datapoint_write_bounds b
      JOIN datapoints d ON d.id = b.datapoint WHERE d.project_id = ? AND d.datapoint_id = ?`, projectId, dataPointID),
    boundsOfProject: async (projectId) => boundsById(await sql.rows<WriteBounds & { datapoint: number }>(BOUNDS_OF_PROJECT, projectId)),
    setBounds: async (projectId, dataPointID, b) => {
      if (!(b.setpoint_min_value <= b.setpoint_max_value)) {
        throw new InvalidInputError(`setpoint_min_value (${b.setpoint_min_value}) must not be greater than setpoint_max_value (${b.setpoint_max_value})`)
      }
      const id = await sql.value<number>('SELECT id FROM datapoints WHERE project_id = ? AND datapoint_id = ?', projectId, dataPointID)
      if (id === undefined) throw new NotFoundError(`Datapoint '${dataPointID}' not found in project ${projectId}`)
      await sql.run(`INSERT INTO datapoint_write_bounds (datapoint, setpoint_min_value, setpoint_max_value) VALUES (?, ?, ?)
        ON CONFLICT (datapoint) DO UPDATE SET setpoint_min_value = excluded.setpoint_min_value, setpoint_max_value = excluded.setpoint_max_value`,
      id, b.setpoint_min_value, b.setpoint_max_value)
      return { setpoint_min_value: b.setpoint_min_value, setpoint_max_value: b.setpoint_max_value }
    },
    create: async (op) => {
      await sql.run(`INSERT INTO setpoint_operations (reference, project_id, datapoint_id, value, priority, acked, dryrun, keep_out_of_service,
        requested_by, created_at, deadline, status, log) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      op.reference, op.project_id, op.dataPointID, op.value, op.priority, op.acked ? 1 : 0, op.dryrun ? 1 : 0, op.keep_out_of_service ? 1 : 0,
      op.requested_by, op.created_at, op.deadline, op.status, JSON.stringify(op.log))
      return { ...op, old_value: null }
    },
    advance: async (reference, status, entry, change = {}, current?: SetpointOperation) => {
      // Compare-and-set on what was read: only the first of several API processes moves it.
      const seen = current?.reference === reference ? current : await find(reference)
      if (!seen) return undefined
      const op = { ...seen, log: [...seen.log, entry], status }
      if (change.old_value !== undefined) op.old_value = change.old_value
      if (change.deadline !== undefined) op.deadline = change.deadline
      const n = await sql.run('UPDATE setpoint_operations SET status = ?, old_value = ?, deadline = ?, log = ? WHERE reference = ? AND status = ? AND log = ?',
        op.status, op.old_value, op.deadline, JSON.stringify(op.log), reference, seen.status, JSON.stringify(seen.log))
      return n === 1 ? op : undefined
    },
    find,
    get,
    listByDatapoint: async (projectId, dataPointID, limit = 100) =>
      (await sql.rows<SetpointRow>('SELECT * FROM setpoint_operations WHERE project_id = ? AND datapoint_id = ? ORDER BY id DESC LIMIT ?', projectId, dataPointID, limit)).map(toOperation),
    listAwaiting: async (projectId) => (projectId === undefined
      ? await sql.rows<SetpointRow>(`SELECT * FROM setpoint_operations WHERE ${open} ORDER BY id`)
      : await sql.rows<SetpointRow>(`SELECT * FROM setpoint_operations WHERE ${open} AND project_id = ? ORDER BY id`, projectId)).map(toOperation),
  }
}
