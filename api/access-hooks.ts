// Authentication (onRequest) and the endpoint grant check (preValidation) for every route
// that names an endpoint number. A denied caller learns nothing about the body schema:
// the grant is checked before the body is validated.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Catalog } from '../catalog/index.ts'
import { ForbiddenError, InvalidInputError } from '../core/errors.ts'
import type { Project } from '../catalog/types.ts'
import type { Authenticator, Caller } from './authenticate.ts'
import type { Operation } from './envelope.ts'
import { Permissions } from './permissions.ts'
import { deniedText, endpoint } from './registry.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    endpoint?: number
    operation?: Operation
    public?: boolean
    /** The body is JSON ingest observations: checked while parsed where it has their usual shape (api/app.ts). */
    observationsBody?: boolean
    /**
     * A WebSocket whose messages name their projects (GET /v2/live): `project_id` on the upgrade
     * is optional (checked when given), and a browser's token may come as the sub-protocol
     * `bearer.<token>` (browsers cannot set headers on a WebSocket).
     */
    projectsInMessages?: boolean
  }
  interface FastifyRequest {
    caller: Caller
    permissions: Permissions
    /** The project named by a Project-scoped request, resolved within the caller's company. */
    project: Project
  }
}

export function installAccessHooks(app: FastifyInstance, catalog: Catalog, auth: Authenticator): void {
  app.decorateRequest('caller', null as unknown as Caller)
  app.decorateRequest('permissions', null as unknown as Permissions)
  app.decorateRequest('project', null as unknown as Project)

  app.addHook('onRequest', async (req) => {
    const no = req.routeOptions.config.endpoint
    if (no === undefined) return // public routes and 404s
    const header = req.headers.authorization ?? (req.routeOptions.config.projectsInMessages ? bearerOfSubprotocols(req.headers['sec-websocket-protocol']) : undefined)
    req.caller = await auth.authenticate(header, req.ip)
    req.permissions = new Permissions(await catalog.roles.rolesOfUser(req.caller.user.id))
  })

  app.addHook('preValidation', async (req) => {
    const no = req.routeOptions.config.endpoint
    if (no === undefined) return
    const x = endpoint(no)
    if (x.scope === 'User') return // rule 1: operations on the caller's own record
    if (x.scope === 'Company') {
      if (!req.permissions.allowsCompany(no)) throw new ForbiddenError(deniedText(x), 'ENDPOINT_NOT_GRANTED')
      return
    }
    if (req.routeOptions.config.projectsInMessages && projectParam(req) === undefined) return
    const projectId = projectIdOf(req)
    req.project = await catalog.projects.getInCompany(projectId, req.caller.user.company_id)
    if (!req.permissions.allowsProject(no, projectId)) throw new ForbiddenError(deniedText(x), 'ENDPOINT_NOT_GRANTED')
  })
}

/** `Sec-WebSocket-Protocol: lintel.v1, bearer.<token>` as the Authorization header it stands for. */
function bearerOfSubprotocols(header: string | undefined): string | undefined {
  const token = header?.split(',').map((p) => p.trim()).find((p) => p.startsWith('bearer.'))
  return token ? `Bearer ${token.slice('bearer.'.length)}` : undefined
}

const projectParam = (req: FastifyRequest): unknown =>
  (req.params as Record<string, unknown>)?.project_id ?? (req.query as Record<string, unknown>)?.project_id

function projectIdOf(req: FastifyRequest): number {
  const raw = projectParam(req)
  if (typeof raw !== 'string' || !/^[1-9]\d{0,15}$/.test(raw)) {
    throw new InvalidInputError(raw === undefined ? 'project_id is required' : `project_id must be a positive integer, got '${String(raw)}'`)
  }
  return Number(raw)
}
