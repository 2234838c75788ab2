// The SQLite repository of catalog/setpoints.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/setpoints.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import { InvalidInputError, NotFoundError } from '../../core/errors.ts'
import { DEFAULT_MAX_PRIORITY, type SetpointSettings, type WriteBounds, BOUNDS_OF_PROJECT, boundsById, type SetpointLogEntry, type SetpointOperation, type NewSetpointOperation, type SetpointRow, toOperation } from '../setpoints.ts'

export class Setpoints {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db) {
    this.sql = statements(db)
  }

  /** Whether setpoint writing is enabled for the project and its most urgent allowed priority. */
  async settings(projectId: number): Promise<SetpointSettings> {
    const row = this.sql('SELECT enabled, max_priority FROM project_setpoints WHERE project_id = ?').get(projectId) as { enabled: number; max_priority: number } | undefined
    return { project_id: projectId, enabled: row?.enabled === 1, max_priority: row?.max_priority ?? DEFAULT_MAX_PRIORITY }
  }

  /** The operator's switch (server/cli.ts `project setpoints`). */
  async setSettings(projectId: number, change: { enabled?: boolean; maxPriority?: number }): Promise<SetpointSettings> {
    if (change.maxPriority !== undefined && !(Number.isInteger(change.maxPriority) && change.maxPriority >= 1 && change.maxPriority <= 16)) {
      throw new InvalidInputError(`The maximum setpoint priority must be an integer from 1 (most urgent) to 16, got ${change.maxPriority}`)
    }
    if (this.sql('SELECT 1 FROM projects WHERE id = ?').get(projectId) === undefined) throw new NotFoundError(`Project ${projectId} not found`)
    // One statement, before any await: the change is made when the call returns (the operator
    // tool closes the catalog right after it).
    const enabled = change.enabled === undefined ? null : change.enabled ? 1 : 0
    const max = change.maxPriority ?? null
    this.sql(`INSERT INTO project_setpoints (project_id, enabled, max_priority) VALUES (?, COALESCE(?, 0), COALESCE(?, ${DEFAULT_MAX_PRIORITY}))
      ON CONFLICT (project_id) DO UPDATE SET enabled = COALESCE(?, enabled), max_priority = COALESCE(?, max_priority)`)
      .run(projectId, enabled, max, enabled, max)
    return this.settings(projectId)
  }

  async bounds(projectId: number, dataPointID: string): Promise<WriteBounds | undefined> {
    return this.sql(`SELECT b.setpoint_min_value, b.setpoint_max_value FROM datapoint_write_bounds b JOIN datapoints d ON d.id = b.datapoint
      WHERE d.project_id = ? AND d.datapoint_id = ?`).get(projectId, dataPointID) as WriteBounds | undefined
  }

  async boundsOfProject(projectId: number): Promise<Map<number, WriteBounds>> {
    return boundsById(this.sql(BOUNDS_OF_PROJECT).all(projectId) as (WriteBounds & { datapoint: number })[])
  }

  /** Sets both bounds of an existing datapoint (PUT /v2/datapoint). */
  async setBounds(projectId: number, dataPointID: string, b: WriteBounds): Promise<WriteBounds> {
    if (!(b.setpoint_min_value <= b.setpoint_max_value)) {
      throw new InvalidInputError(`setpoint_min_value (${b.setpoint_min_value}) must not be greater than setpoint_max_value (${b.setpoint_max_value})`)
    }
    const id = this.sql('SELECT id FROM datapoints WHERE project_id = ? AND datapoint_id = ?').pluck().get(projectId, dataPointID) as number | undefined
    if (id === undefined) throw new NotFoundError(`Datapoint '${dataPointID}' not found in project ${projectId}`)
    this.sql(`INSERT INTO datapoint_write_bounds (datapoint, setpoint_min_value, setpoint_max_value) VALUES (?, ?, ?)
      ON CONFLICT (datapoint) DO UPDATE SET setpoint_min_value = excluded.setpoint_min_value, setpoint_max_value = excluded.setpoint_max_value`)
      .run(id, b.setpoint_min_value, b.setpoint_max_value)
    return { setpoint_min_value: b.setpoint_min_value, setpoint_max_value: b.setpoint_max_value }
  }

  async create(op: NewSetpointOperation): Promise<SetpointOperation> {
    this.sql(`INSERT INTO setpoint_operations (reference, project_id, datapoint_id, value, priority, acked, dryrun, keep_out_of_service,
        requested_by, created_at, deadline, status, log) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(op.reference, op.project_id, op.dataPointID, op.value, op.priority, op.acked ? 1 : 0, op.dryrun ? 1 : 0, op.keep_out_of_service ? 1 : 0,
        op.requested_by, op.created_at, op.deadline, op.status, JSON.stringify(op.log))
    return { ...op, old_value: null }
  }

  /**
   * Moves an operation to `status`, appending one log entry (and old_value / deadline when
   * given), only if it is still as `current` (or a fresh read) shows it: several API
   * processes may hear the same answer or time out the same operation, and only the first
   * change counts. Undefined when the operation changed meanwhile (or does not exist).
   */
  async advance(reference: string, status: string, entry: SetpointLogEntry, change: { old_value?: string | null; deadline?: number | null } = {}, current?: SetpointOperation): Promise<SetpointOperation | undefined> {
    // `current`: the caller's fresh read of the operation (saves reading it again)
    const seen = current?.reference === reference ? current : await this.find(reference)
    if (!seen) return undefined
    const op = { ...seen, log: [...seen.log, entry], status }
    if (change.old_value !== undefined) op.old_value = change.old_value
    if (change.deadline !== undefined) op.deadline = change.deadline
    const done = this.sql('UPDATE setpoint_operations SET status = ?, old_value = ?, deadline = ?, log = ? WHERE reference = ? AND status = ? AND log = ?')
      .run(op.status, op.old_value, op.deadline, JSON.stringify(op.log), reference, seen.status, JSON.stringify(seen.log))
    return done.changes === 1 ? op : undefined
  }

  async find(reference: string): Promise<SetpointOperation | undefined> {
    const row = this.sql('SELECT * FROM setpoint_operations WHERE reference = ?').get(reference) as SetpointRow | undefined
    return row && toOperation(row)
  }

  async get(reference: string): Promise<SetpointOperation> {
    const op = await this.find(reference)
    if (!op) throw new NotFoundError(`Setpoint operation '${reference}' not found`)
    return op
  }

  /** The audit trail of a datapoint, newest first. */
  async listByDatapoint(projectId: number, dataPointID: string, limit = 100): Promise<SetpointOperation[]> {
    return (this.sql('SELECT * FROM setpoint_operations WHERE project_id = ? AND datapoint_id = ? ORDER BY id DESC LIMIT ?')
      .all(projectId, dataPointID, limit) as SetpointRow[]).map(toOperation)
  }

  /**
   * Operations still waiting for something: `initialized` ones, and `requested` ones with a
   * deadline (acknowledged, so an answer or the time-out is awaited). Unacknowledged
   * operations stay `requested` without a deadline: nothing more is awaited for them.
   */
  async listAwaiting(projectId?: number): Promise<SetpointOperation[]> {
    const open = "(status = 'initialized' OR (status = 'requested' AND deadline IS NOT NULL))"
    const rows = projectId === undefined
      ? this.sql(`SELECT * FROM setpoint_operations WHERE ${open} ORDER BY id`).all()
      : this.sql(`SELECT * FROM setpoint_operations WHERE ${open} AND project_id = ? ORDER BY id`).all(projectId)
    return (rows as SetpointRow[]).map(toOperation)
  }
}
