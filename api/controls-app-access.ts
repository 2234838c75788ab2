// What the controls-app endpoints check before an app may be created, run, stopped or deleted
// (issue 31 item 1; spec 2 "Setpoint write operation" safeguards, since an app writes setpoints
// through the edge agent): the app writes the datapoints of its component's pins, so
//   (0) the project, the endpoint grant and another company (404): the access hooks
//   (1) setpoint writing is enabled for the project, and the app's priority is not more urgent
//       than the project's maximum (403)
//   (2) the caller has write access (TagAuth of the endpoint) on every datapoint the app writes (403)
//   (3) each such datapoint is writable with write bounds, and every configured value lies
//       within them (400 naming the field)
// An app is visible through an endpoint only when the caller reads every datapoint it writes:
// otherwise it answers 404 like an unknown one (TagAuths do not reveal what exists).
import type { FastifyRequest } from 'fastify'
import type { Catalog } from '../catalog/index.ts'
import type { ComponentInProject } from '../catalog/components-in-project.ts'
import type { ControlsApp } from '../catalog/controls-apps.ts'
import { ForbiddenError, InvalidInputError, NotFoundError } from '../core/errors.ts'
import type { ComponentLibrary } from '../engine/analytics/library.ts'
import { isWritable } from './routes/setpoints.ts'
import { DatapointAccess } from './datapoint-access.ts'

export const appNotFound = (id: string, projectId: number) => new NotFoundError(`Controls app '${id}' not found in project ${projectId}`)

/** The configuration's values per pin, with the JSON path of each (for the 400s). */
export interface ConfiguredValue { field: string; pin: string; value: number | null }

export class ControlsAppAccess {
  private readonly access: DatapointAccess

  constructor (private readonly catalog: Catalog, private readonly library: ComponentLibrary) {
    this.access = new DatapointAccess(catalog)
  }

  /** The mapped component of the request's project, 404 otherwise. */
  async component(req: FastifyRequest, id: number): Promise<ComponentInProject> {
    const cip = await this.catalog.componentsInProject.find(id)
    if (!cip || cip.project_id !== req.project.id) throw new NotFoundError(`Component in project ${id} not found in project ${req.project.id}`)
    return cip
  }

  /** Pin name (the library's alphanumeric id) → datapoint, for the mapped pins of the component. */
  mappedPins(cip: ComponentInProject): Record<string, string> {
    const component = this.library.get(cip.component_id)
    const out: Record<string, string> = {}
    for (const m of cip.pins) {
      const pin = component?.pins.find((p) => p.id === m.pin_id)
      if (pin) out[pin.alphanumeric_id] = m.dataPointID
    }
    return out
  }

  /** The app if it is in the request's project and the caller reads all it writes through `no`; 404 otherwise. */
  async visible(req: FastifyRequest, no: number, app: ControlsApp | undefined, id: string): Promise<ControlsApp> {
    if (!app || app.project_id !== req.project.id || !(await this.access.readsAll(req, no, Object.values(app.pins)))) throw appNotFound(id, req.project.id)
    return app
  }

  /** A synchronous visibility test for lists; `all` when every app is visible. */
  listTest(req: FastifyRequest, no: number): ((app: ControlsApp) => Promise<boolean>) & { all: boolean } {
    const t = this.access.test(req, no, 'read')
    const fn = async (app: ControlsApp) => t.all || this.access.readsAll(req, no, Object.values(app.pins))
    return Object.assign(fn, { all: t.all })
  }

  /** Safeguards (1) and (2): enabled, priority, write access on every datapoint the app writes. */
  async mayWrite(req: FastifyRequest, no: number, pins: Record<string, string>, priority: number): Promise<void> {
    const pid = req.project.id
    const settings = await this.catalog.setpoints.settings(pid)
    if (!settings.enabled) {
      throw new ForbiddenError(`Controls apps write setpoints, and setpoint writing is not enabled for project ${pid} (the operator enables it: npx lintel project setpoints --id ${pid} --enable)`)
    }
    if (priority < settings.max_priority) {
      throw new ForbiddenError(`configuration.priority ${priority} is more urgent than ${settings.max_priority}, the most urgent priority allowed for project ${pid} ` +
        '(1 is the most urgent; by default nothing above 8, the manual operator level). Higher priorities can be unlocked per project on request.')
    }
    await this.mayWriteDatapoints(req, no, pins)
  }

  /** Safeguard (2) alone: write access on every datapoint the app writes (403 naming the first without it). */
  async mayWriteDatapoints(req: FastifyRequest, no: number, pins: Record<string, string>): Promise<void> {
    for (const dp of new Set(Object.values(pins))) await this.access.require(req, no, dp, 'write')
  }

  /** Safeguard (3): writable datapoints with bounds, every configured value within them. */
  async withinBounds(req: FastifyRequest, pins: Record<string, string>, values: readonly ConfiguredValue[]): Promise<void> {
    const pid = req.project.id
    for (const [pin, dp] of Object.entries(pins)) {
      const d = await this.catalog.datapoints.find(pid, dp)
      if (!d || !isWritable(d.tags)) throw new InvalidInputError(`configuration: pin ${pin} writes datapoint '${dp}', which is not writable (its metadata has no tag writable=true)`, 'CONTROLS_APP_CONFIG_INVALID')
      const b = await this.catalog.setpoints.bounds(pid, dp)
      if (!b) throw new InvalidInputError(`configuration: pin ${pin} writes datapoint '${dp}', which has no write bounds (set setpoint_min_value and setpoint_max_value with PUT /v2/datapoint)`, 'CONTROLS_APP_CONFIG_INVALID')
      for (const v of values) {
        if (v.pin === pin && v.value !== null && (v.value < b.setpoint_min_value || v.value > b.setpoint_max_value)) {
          throw new InvalidInputError(`${v.field}: ${v.value} is outside the write bounds [${b.setpoint_min_value},${b.setpoint_max_value}] of datapoint '${dp}'`, 'CONTROLS_APP_CONFIG_INVALID')
        }
      }
    }
  }
}
