// Setpoints in the catalog (spec 2 "Datapoint write bounds", "Setpoint write operation";
// issue 11): write bounds of datapoints, the per-project enabling with its most urgent allowed
// priority, and the setpoint operations (state, JSON log, audit). The states, their order and
// the safeguards are the engine's (engine/setpoints/); this module only stores what its
// callers decided. Methods return Promises (the catalog becomes a Promise-returning port).

/** BACnet priorities: 1 is the most urgent, 16 the least. */
export const DEFAULT_MAX_PRIORITY = 8

export interface SetpointSettings { project_id: number; enabled: boolean; max_priority: number }
export interface WriteBounds { setpoint_min_value: number; setpoint_max_value: number }

export const BOUNDS_OF_PROJECT = `SELECT b.datapoint, b.setpoint_min_value, b.setpoint_max_value FROM datapoint_write_bounds b
  JOIN datapoints d ON d.id = b.datapoint WHERE d.project_id = ?`
/** Rows of BOUNDS_OF_PROJECT by datapoint id (PostgreSQL may give bigints as text). */
export const boundsById = (rows: (WriteBounds & { datapoint: number | string })[]): Map<number, WriteBounds> =>
  new Map(rows.map((r) => [Number(r.datapoint), { setpoint_min_value: Number(r.setpoint_min_value), setpoint_max_value: Number(r.setpoint_max_value) }]))

/** One entry of an operation's log (spec 2 "Setpoint write operation", `log`). */
export interface SetpointLogEntry {
  msg: string
  status: string
  time: string
  acked?: boolean
  dryrun?: boolean
  priorityArray?: (number | null)[]
  overwritten_value?: string | null
  [key: string]: unknown
}

export interface SetpointOperation {
  reference: string
  project_id: number
  dataPointID: string
  value: number | null
  priority: number
  acked: boolean
  dryrun: boolean
  keep_out_of_service: boolean
  /** Who asked (the caller's e-mail). */
  requested_by: string
  /** ms since the epoch */
  created_at: number
  /** ms since the epoch by which the edge must have answered; null when none is awaited */
  deadline: number | null
  status: string
  old_value: string | null
  log: SetpointLogEntry[]
}

export type NewSetpointOperation = Omit<SetpointOperation, 'old_value'>

export interface SetpointRow {
  reference: string; project_id: number; datapoint_id: string; value: number | null; priority: number; acked: number; dryrun: number
  keep_out_of_service: number; requested_by: string; created_at: number; deadline: number | null; status: string; old_value: string | null; log: string
}

export const toOperation = (r: SetpointRow): SetpointOperation => ({
  reference: r.reference, project_id: r.project_id, dataPointID: r.datapoint_id, value: r.value, priority: r.priority,
  acked: r.acked === 1, dryrun: r.dryrun === 1, keep_out_of_service: r.keep_out_of_service === 1, requested_by: r.requested_by,
  created_at: r.created_at, deadline: r.deadline, status: r.status, old_value: r.old_value, log: JSON.parse(r.log),
})
