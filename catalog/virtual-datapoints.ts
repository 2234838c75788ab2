// Definitions of virtual datapoints (spec 2) with their status code and status-change log.
// The codes, their texts and the allowed transitions are the engine's lifecycle table
// (engine/vdp/lifecycle.ts); this module only stores what its callers decided.
import { statements, type Db } from './db.ts'
import { ConflictError, InvalidInputError, NotFoundError } from '../core/errors.ts'
import { identifierProblem } from '../core/identifier.ts'

export interface VdpLogEntry { message: string; status_code: number; ts: string; type: 'status_change' }

export interface VdpRecord {
  id: number
  project_id: number
  dataPointID: string
  type: string
  description: string
  pins: Record<string, unknown>
  parameters: Record<string, unknown>
  status_code: number
}

export interface VdpRow { id: number; project_id: number; datapoint_id: string; type: string; description: string; pins: string; parameters: string; status_code: number }

export const toVdp = (r: VdpRow): VdpRecord => ({
  id: r.id, project_id: r.project_id, dataPointID: r.datapoint_id, type: r.type, description: r.description,
  pins: JSON.parse(r.pins), parameters: JSON.parse(r.parameters), status_code: r.status_code,
})

/** Nanoseconds since the epoch as text (the spec's `ts`), from the millisecond clock. */
export const nowNs = (ms: number): string => (BigInt(ms) * 1_000_000n).toString()

export class VirtualDatapoints {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db, private readonly now: () => number = Date.now) {
    this.sql = statements(db)
  }

  create(projectId: number, v: { dataPointID: string; type: string; description: string; pins: object; parameters: object; status_code: number }, message: string): VdpRecord {
    const problem = identifierProblem(v.dataPointID)
    if (problem) throw new InvalidInputError(`Refused: ${problem}`)
    if (this.find(projectId, v.dataPointID)) throw new ConflictError(`A virtual datapoint '${v.dataPointID}' already exists in project ${projectId}`)
    return this.db.transaction(() => {
      const id = Number(this.sql('INSERT INTO virtual_datapoints (project_id, datapoint_id, type, description, pins, parameters, status_code, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(projectId, v.dataPointID, v.type, v.description, JSON.stringify(v.pins), JSON.stringify(v.parameters), v.status_code, this.now()).lastInsertRowid)
      this.log(id, v.status_code, message)
      return this.byId(id)
    })()
  }

  find(projectId: number, dataPointID: string): VdpRecord | undefined {
    const row = this.sql('SELECT * FROM virtual_datapoints WHERE project_id = ? AND datapoint_id = ?').get(projectId, dataPointID) as VdpRow | undefined
    return row && toVdp(row)
  }

  get(projectId: number, dataPointID: string): VdpRecord {
    const v = this.find(projectId, dataPointID)
    if (!v) throw new NotFoundError(`Virtual datapoint '${dataPointID}' not found in project ${projectId}`)
    return v
  }

  byId(id: number): VdpRecord {
    const row = this.sql('SELECT * FROM virtual_datapoints WHERE id = ?').get(id) as VdpRow | undefined
    if (!row) throw new NotFoundError(`Virtual datapoint ${id} not found`)
    return toVdp(row)
  }

  listByProject(projectId: number): VdpRecord[] {
    return (this.sql('SELECT * FROM virtual_datapoints WHERE project_id = ? ORDER BY datapoint_id').all(projectId) as VdpRow[]).map(toVdp)
  }

  /** Virtual datapoints of all projects with one of the status codes (e.g. those that should run). */
  listByStatus(codes: readonly number[]): VdpRecord[] {
    if (codes.length === 0) return []
    return (this.sql(`SELECT * FROM virtual_datapoints WHERE status_code IN (${codes.map(() => '?').join(', ')}) ORDER BY id`).all(...codes) as VdpRow[]).map(toVdp)
  }

  setStatus(id: number, code: number, message: string): VdpRecord {
    this.db.transaction(() => {
      this.sql('UPDATE virtual_datapoints SET status_code = ? WHERE id = ?').run(code, id)
      this.log(id, code, message)
    })()
    return this.byId(id)
  }

  setDescription(id: number, description: string): VdpRecord {
    this.sql('UPDATE virtual_datapoints SET description = ? WHERE id = ?').run(description, id)
    return this.byId(id)
  }

  remove(id: number): void {
    this.sql('DELETE FROM virtual_datapoints WHERE id = ?').run(id)
  }

  logs(id: number): VdpLogEntry[] {
    return (this.sql('SELECT ts, status_code, message FROM vdp_logs WHERE vdp = ? ORDER BY seq').all(id) as { ts: string; status_code: number; message: string }[])
      .map((l) => ({ message: l.message, status_code: l.status_code, ts: l.ts, type: 'status_change' }))
  }

  private log(id: number, code: number, message: string): void {
    this.sql('INSERT INTO vdp_logs (vdp, ts, status_code, message) VALUES (?, ?, ?, ?)').run(id, nowNs(this.now()), code, message)
  }
}
