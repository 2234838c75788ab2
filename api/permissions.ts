// A caller's effective permissions (spec 1, access rules 1-5): the union over all roles the
// user holds. A grant is never revoked by another role that lacks it (rule 2).
import type { Datapoint, Role, TagAuth, TagAuthInput } from '../catalog/types.ts'
import { InvalidInputError, ForbiddenError } from '../catalog/errors.ts'
import { endpoint, isKnownEndpoint } from './registry.ts'

/** Which datapoints of a project a grant reaches: all, or those matched by the TagAuths. */
export interface DatapointFilter { all: boolean; auths: TagAuth[] }

export class Permissions {
  private readonly companyRoles: Role[]
  private readonly projectRoles = new Map<number, Role[]>()

  constructor (roles: Role[]) {
    this.companyRoles = roles.filter((r) => r.project_id === undefined)
    for (const r of roles) {
      if (r.project_id === undefined) continue
      const list = this.projectRoles.get(r.project_id) ?? []
      list.push(r)
      this.projectRoles.set(r.project_id, list)
    }
  }

  get hasCompanyRole(): boolean {
    return this.companyRoles.length > 0
  }

  /** Projects the user holds a project role in. */
  projectIds(): number[] {
    return [...this.projectRoles.keys()]
  }

  /** Company-scoped endpoints: only company roles grant them (rule 4). */
  allowsCompany(no: number): boolean {
    return this.companyRoles.some((r) => r.authed_endpoints.includes(no))
  }

  /** Project-scoped endpoints: company roles cover every project (rule 4), project roles their own. */
  allowsProject(no: number, projectId: number): boolean {
    return this.allowsCompany(no) || (this.projectRoles.get(projectId) ?? []).some((r) => r.authed_endpoints.includes(no))
  }

  /** The datapoints endpoint `no` may touch in the project: union over the roles granting it (rule 5). */
  datapointFilter(no: number, projectId: number): DatapointFilter {
    if (this.allowsCompany(no)) return { all: true, auths: [] }
    const auths = (this.projectRoles.get(projectId) ?? []).filter((r) => r.authed_endpoints.includes(no)).flatMap((r) => r.authed_tags)
    return { all: false, auths }
  }

  /** Rule 3: grants given to a role or user must lie within the granter's own set. */
  assertCanGrant(role: { authed_endpoints: number[]; authed_tags: TagAuthInput[] }, projectId: number | null): void {
    for (const no of role.authed_endpoints) {
      const ok = projectId === null ? this.allowsCompany(no) : this.allowsProject(no, projectId)
      if (!ok) {
        const x = endpoint(no)
        throw new ForbiddenError(`Cannot grant endpoint ${x.number} - ${x.method} ${x.path}: it is not in your own permissions`)
      }
    }
    if (projectId === null) return
    for (const t of role.authed_tags) {
      if (!this.coversTagAuth(t, projectId)) {
        throw new ForbiddenError(`Cannot grant TagAuth ${t.key}=${t.value} (read ${t.read}, write ${t.write}): it is not in your own permissions`)
      }
    }
  }

  private coversTagAuth(t: TagAuthInput, projectId: number): boolean {
    if (this.hasCompanyRole) return true // company roles reach all datapoints of all projects
    return (this.projectRoles.get(projectId) ?? []).some((r) => r.authed_tags.some((own) =>
      (!t.read || own.read) && (!t.write || own.write) &&
      ((own.key === 'dataPointID' && own.value === '*') || (own.key === t.key && (own.value === '*' || own.value === t.value)))))
  }
}

/** Rule 4 and unknown numbers: what a role of the scope may list in `authed_endpoints`. */
export function validateRoleEndpoints(numbers: number[], projectRole: boolean): void {
  for (const no of numbers) {
    if (!isKnownEndpoint(no)) throw new InvalidInputError(`Unknown endpoint number: ${no}`)
    const x = endpoint(no)
    if (x.scope === 'User') throw new InvalidInputError(`Endpoint ${no} - ${x.method} ${x.path} acts on the caller's own record and needs no grant`)
    if (projectRole && x.scope === 'Company') {
      throw new InvalidInputError(`A project role cannot grant the Company endpoint ${no} - ${x.method} ${x.path}`)
    }
  }
}

/** Whether a TagAuth names the datapoint: `key` is `dataPointID` or a tag key; `*` matches any value. */
export function tagAuthMatches(t: TagAuth, dp: Pick<Datapoint, 'dataPointID' | 'tags'>): boolean {
  const actual = t.key === 'dataPointID' ? dp.dataPointID : dp.tags[t.key]
  if (actual === undefined) return false
  return t.value === '*' || t.value === actual
}

export function canAccessDatapoint(f: DatapointFilter, dp: Pick<Datapoint, 'dataPointID' | 'tags'>, mode: 'read' | 'write'): boolean {
  return f.all || f.auths.some((t) => t[mode] && tagAuthMatches(t, dp))
}
