// The SQLite repository of catalog/virtual-datapoints.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/virtual-datapoints.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import { InvalidInputError, NotFoundError } from '../../core/errors.ts'
import { identifierProblem } from '../../core/identifier.ts'
import { type VdpLogEntry, type VdpRecord, type VdpRow, toVdp, nowNs, vdpExists } from '../virtual-datapoints.ts'

export class VirtualDatapoints {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db, private readonly now: () => number = Date.now) {
    this.sql = statements(db)
  }

  create(projectId: number, v: { dataPointID: string; type: string; description: string; pins: object; parameters: object; status_code: number }, message: string): VdpRecord {
    const problem = identifierProblem(v.dataPointID)
    if (problem) throw new InvalidInputError(`Refused: ${problem}`)
    if (this.find(projectId, v.dataPointID)) throw vdpExists(projectId, v.dataPointID)
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
