// A caller's effective permissions (spec 1, access rules 1-5; DESIGN.md "grants").
//
// The grant model: a permission is an (endpoint, datapoint filter) pair held by ONE role. A
// company role holds (e, all datapoints of every project) for each endpoint e it grants; a
// project role holds (e, its TagAuths) for each endpoint e it grants, in its project only.
// The caller's permissions are the union of these pairs over all roles (rule 2), so:
// - calling an endpoint needs one role that grants it (`allowsCompany`, `allowsProject`);
// - the datapoints endpoint e may touch are the union of the filters of the roles granting e
//   (`datapointFilter`); a role that does not grant e adds nothing for e, so a company role
//   granting only endpoint 10 reaches no datapoint through endpoint 52;
// - granting (rule 3) is checked pair by pair against that same per-endpoint filter
//   (`uncoveredPair`): a TagAuth of one role is never combined with the endpoint of another.
import type { Role, TagAuth, TagAuthInput } from '../catalog/types.ts'
import { InvalidInputError, ForbiddenError } from '../core/errors.ts'
import { endpoint, isKnownEndpoint } from './registry.ts'

/** Which datapoints of a project a grant reaches: all, or those matched by the TagAuths (core/tag-auth.ts applies it). */
export interface DatapointFilter { all: boolean; auths: TagAuth[] }

/** What a role grants: its endpoints, each paired with its TagAuths (project role) or all datapoints (company role). */
export interface Grant { authed_endpoints: number[]; authed_tags: TagAuthInput[] }

/** The first pair of a grant the caller does not hold: an endpoint, or an endpoint with one TagAuth. */
export interface UncoveredPair { endpoint: number; tag?: TagAuthInput }

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
    return this.allowsCompany(no) || this.rolesIn(projectId).some((r) => r.authed_endpoints.includes(no))
  }

  /** The datapoints endpoint `no` may touch in the project: union over the roles granting `no` (rule 5). */
  datapointFilter(no: number, projectId: number): DatapointFilter {
    if (this.allowsCompany(no)) return { all: true, auths: [] }
    const auths = this.rolesIn(projectId).filter((r) => r.authed_endpoints.includes(no)).flatMap((r) => r.authed_tags)
    return { all: false, auths }
  }

  /**
   * Rule 3, per pair: the first (endpoint, TagAuth) pair of `grant` that no single role of
   * the caller holds; undefined when the caller holds them all. `projectId` null = the grant
   * is a company role, whose pairs reach all datapoints: only company roles hold those.
   */
  uncoveredPair(grant: Grant, projectId: number | null): UncoveredPair | undefined {
    for (const no of grant.authed_endpoints) {
      if (projectId === null) {
        if (!this.allowsCompany(no)) return { endpoint: no }
        continue
      }
      if (!this.allowsProject(no, projectId)) return { endpoint: no }
      const mine = this.datapointFilter(no, projectId)
      const tag = grant.authed_tags.find((t) => !filterCovers(mine, t))
      if (tag) return { endpoint: no, tag }
    }
    return undefined
  }

  /** Creating a role, changing it (checked on the role as it will be) or adding a TagAuth. */
  assertCanGrant(grant: Grant, projectId: number | null): void {
    const miss = this.uncoveredPair(grant, projectId)
    if (miss) throw new ForbiddenError(`Cannot grant ${pairText(miss)}: ${reasonText(miss)}`)
  }

  /**
   * Assigning a role grants all of its pairs; changing, deleting or unassigning one needs the
   * same reach (a role above the caller is out of the caller's hands).
   */
  assertCanHandle(role: Role, action: 'assign' | 'unassign' | 'change' | 'delete'): void {
    const miss = this.uncoveredPair(role, role.project_id ?? null)
    if (miss) throw new ForbiddenError(`Cannot ${action} role ${role.id} '${role.name}': it grants ${pairText(miss)}, and ${reasonText(miss)}`)
  }

  private rolesIn(projectId: number): Role[] {
    return this.projectRoles.get(projectId) ?? []
  }
}

function pairText(p: UncoveredPair): string {
  const x = endpoint(p.endpoint)
  const ep = `endpoint ${x.number} - ${x.method} ${x.path}`
  return p.tag ? `TagAuth ${p.tag.key}=${p.tag.value} (read ${p.tag.read}, write ${p.tag.write}) for ${ep}` : ep
}

function reasonText(p: UncoveredPair): string {
  return p.tag
    ? 'none of your roles that grant this endpoint has a TagAuth covering it'
    : 'it is not in your own permissions'
}

/** Whether the filter reaches every datapoint `t` names, for each access mode `t` grants. */
function filterCovers(f: DatapointFilter, t: TagAuthInput): boolean {
  if (f.all) return true
  return (['read', 'write'] as const).every((mode) => !t[mode] || f.auths.some((own) => own[mode] && tagAuthCovers(own, t)))
}

/** `own` names a superset of the datapoints `t` names: all by `dataPointID=*`, any value by `key=*`, or the same key and value. */
function tagAuthCovers(own: TagAuthInput, t: TagAuthInput): boolean {
  if (own.key === 'dataPointID' && own.value === '*') return true
  return own.key === t.key && (own.value === '*' || own.value === t.value)
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
