// Records of the catalog as the API shows them (spec 1, "Resources and their fields").

export interface Company { id: number; name: string; description: string }
export interface Project { id: number; company_id: number; name: string; description: string }
export interface ProjectSettings extends Project {
  load_balancing_group: string
  project_handle: string
  hash_id_length: number
  sampling_n: number
  /** IANA time zone of calendar buckets (issue 14 item 4); default 'UTC'. */
  time_zone: string
}
export interface User { id: number; company_id: number; email: string; firstName: string; lastName: string }
export interface UserWithHash extends User { password_hash: string }
export interface TagAuth { id: number; key: string; value: string; read: boolean; write: boolean }
export type TagAuthInput = Omit<TagAuth, 'id'>
export interface Role {
  id: number
  name: string
  description: string
  project_id?: number
  is_admin: boolean
  authed_endpoints: number[]
  authed_tags: TagAuth[]
}
export interface Datapoint {
  id: number
  project_id: number
  dataPointID: string
  hash_id: string
  tags: Record<string, string>
}

export type Scope = 'company' | 'project'
/** Endpoints an `admin` role of a scope holds (all of its scope); injected by the API registry. */
export type AdminEndpoints = (scope: Scope) => number[]
