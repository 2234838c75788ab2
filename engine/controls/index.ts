// The controls-app runtime in the one module shape (engine/running.ts): started, it hears the
// edge agents' reports (through `reports`, which the composition root wires to the broker in
// this process or to the cluster's channel) and then sends the deployments still pending
// (a restart loses none: they are pending in the catalog until the edge confirms them).
// stop() stops hearing reports; the catalog keeps the states and pending deployments.
import type { Running } from '../running.ts'
import { ControlsAppService, type ControlsServiceDeps } from './service.ts'

export interface ControlsAppsDeps extends ControlsServiceDeps {
  /** Starts delivering the edge's reports to the service; stopped first on stop(). */
  reports: (service: ControlsAppService) => Promise<Running>
}

export async function startControlsApps(deps: ControlsAppsDeps): Promise<Running & { service: ControlsAppService }> {
  const service = new ControlsAppService(deps)
  // Reports are heard before the resume, so an answer to a re-sent deployment is not missed.
  const reports = await deps.reports(service)
  try {
    await service.resume()
  } catch (err) {
    await reports.stop()
    throw err
  }
  return { service, stop: () => reports.stop() }
}
