// Devices of a project as Metadata V2 messages describe them (spec 3, "Metadata messages":
// entity type `device`, its tags and child datapoints), for GET /v2/project/{project_id}
// (issue 15, spec drift 6: device tags were stored but could not be read).
// What a caller sees follows its TagAuths on the project's datapoints (endpoint 30):
//   - a device is listed when the caller may read at least one of its datapoints, with only
//     those datapoints;
//   - a device without readable datapoints (also one without any) is listed only to a caller
//     who may read every datapoint of the project (filter `all`), so narrow roles learn
//     nothing about equipment outside their datapoints.
// A helper of its own so that the project route (and a paginated variant) can call it.
import type { Catalog } from '../catalog/index.ts'
import type { DatapointTags } from '../core/tag-auth.ts'
import { Type } from '@sinclair/typebox'

export const Device = Type.Object({
  device_id: Type.String(),
  tags: Type.Record(Type.String(), Type.String()),
  datapoints: Type.Array(Type.String(), { description: 'dataPointIDs of its child datapoints the caller may read' }),
})

export interface DeviceView { device_id: string; tags: Record<string, string>; datapoints: string[] }

/** `readable`: the caller's read test of endpoint 30 (api/datapoint-access.ts), `all` when it reaches every datapoint. */
export async function visibleDevices(catalog: Catalog, projectId: number, readable: ((dp: DatapointTags) => boolean) & { all: boolean }): Promise<DeviceView[]> {
  const devices = await catalog.entityTags.devicesOfProject(projectId)
  if (devices.length === 0) return []
  if (readable.all) return devices
  const ids = new Set((await catalog.datapoints.listByProject(projectId)).filter(readable).map((dp) => dp.dataPointID))
  const out: DeviceView[] = []
  for (const d of devices) {
    const datapoints = d.datapoints.filter((id) => ids.has(id))
    if (datapoints.length > 0) out.push({ ...d, datapoints })
  }
  return out
}
