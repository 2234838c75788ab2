// The safeguards of a setpoint write (spec 2 "Setpoints"; issue 11 item 1), in the spec's
// order, shared by POST /v2/datapoint/setpoint (api/routes/setpoints.ts) and Haystack's
// pointWrite (api/haystack/ops/point-write.ts), so a write through either passes the same
// checks with the same texts before it reaches the setpoint service and the edge agent:
//   (1) the project is enabled for setpoint writing, and the priority is not more urgent than
//       the project's maximum (default 8, the manual operator level; the operator tool unlocks)
//   (2) the caller's role gives write access on the datapoint (the caller's TagAuth check)
//   (3) the datapoint is `writable` (tag writable=true from its metadata) and has both bounds,
//       and the value lies within them
import type { Catalog } from '../catalog/index.ts'
import { ForbiddenError, InvalidInputError, NotFoundError } from '../core/errors.ts'

/** `writable` comes from the datapoint's metadata: the tag writable=true (META or the API). */
export const isWritable = (tags: Record<string, string>): boolean => /^(true|1|yes)$/i.test(tags.writable ?? '')

export async function checkSetpointWrite(catalog: Catalog, pid: number, dataPointID: string, value: number | null, priority: number, requireWrite: () => Promise<void>): Promise<void> {
  // (1) enabled, with the project's most urgent allowed priority
  const settings = await catalog.setpoints.settings(pid)
  if (!settings.enabled) throw new NotFoundError(`Project ${pid} was not found or setpoint writing is not enabled for it`)
  if (priority < settings.max_priority) {
    throw new ForbiddenError(`Setpoint write refused: priority ${priority} is more urgent than ${settings.max_priority}, the most urgent priority ` +
      `allowed for project ${pid} (1 is the most urgent; by default nothing above 8, the manual operator level). ` +
      'Higher priorities can be unlocked per project on request.')
  }
  // (2) write access on the datapoint
  await requireWrite()
  const dp = await catalog.datapoints.get(pid, dataPointID)
  // (3) writable, bounds, value within them
  if (!isWritable(dp.tags)) throw new InvalidInputError(`Setpoint writing refused for datapoint '${dataPointID}': it is not writable (its metadata has no tag writable=true)`)
  const b = await catalog.setpoints.bounds(pid, dataPointID)
  if (!b) throw new InvalidInputError(`Setpoint writing refused for datapoint '${dataPointID}': it has no write bounds (set setpoint_min_value and setpoint_max_value with PUT /v2/datapoint)`)
  if (value !== null && (value < b.setpoint_min_value || value > b.setpoint_max_value)) {
    throw new InvalidInputError(`Setpoint value ${value} for datapoint '${dataPointID}' is outside its write bounds [${b.setpoint_min_value},${b.setpoint_max_value}]`)
  }
}
