// Definitions of virtual datapoints (spec 2) with their status code and status-change log.
// The codes, their texts and the allowed transitions are the engine's lifecycle table
// (engine/vdp/lifecycle.ts); this module only stores what its callers decided.
import { ConflictError } from '../core/errors.ts'

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

/** The 409 of a virtual datapoint identifier in use (both adapters). */
export const vdpExists = (projectId: number, dataPointID: string) => new ConflictError(`A virtual datapoint '${dataPointID}' already exists in project ${projectId}`)
