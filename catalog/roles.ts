// Company roles (project_id NULL) and project roles, their endpoint grants, TagAuths and
// assignments. `admin` roles hold all endpoints of their scope, resolved at read time so
// that endpoints added in later releases are covered (rule 6).
import { ConflictError } from '../core/errors.ts'
import type { AdminEndpoints, Role, TagAuth, TagAuthInput } from './types.ts'

export interface RoleRow { id: number; company_id: number; project_id: number | null; name: string; description: string; is_admin: number }
export interface TagAuthRow { id: number; role_id: number; key: string; value: string; read: number; write: number }

export interface RoleInput {
  name: string
  description?: string
  authed_endpoints?: number[]
  authed_tags?: TagAuthInput[]
}

/** The admin TagAuth of a project: every datapoint has a dataPointID, so `*` matches all. */
export const ALL_DATAPOINTS: TagAuthInput = { key: 'dataPointID', value: '*', read: true, write: true }

/** The 409 of a role name in use in its scope (both adapters). */
export const roleNameTaken = (name: string) => new ConflictError(`A role named '${name}' already exists`)

export const ROLE_ENDPOINTS = 'SELECT endpoint FROM role_endpoints WHERE role_id = ? ORDER BY endpoint'
export const ROLE_TAG_AUTHS = 'SELECT * FROM tag_auths WHERE role_id = ? ORDER BY id'

/** A role from its row, its own endpoints (ignored for admin roles: all of the scope) and TagAuth rows. */
export function toRole(r: RoleRow, adminEndpoints: AdminEndpoints, endpoints: number[], tagRows: TagAuthRow[]): Role {
  const tags = tagRows.map((t): TagAuth => ({ id: t.id, key: t.key, value: t.value, read: t.read === 1, write: t.write === 1 }))
  const authed = r.is_admin ? adminEndpoints(r.project_id === null ? 'company' : 'project') : endpoints
  const role: Role = { id: r.id, name: r.name, description: r.description, is_admin: r.is_admin === 1, authed_endpoints: authed, authed_tags: tags }
  if (r.project_id !== null) role.project_id = r.project_id
  return role
}
