// The controls-app runtime in the one module shape (engine/running.ts): started, it hears the
// edge agents' reports (through `reports`, which the composition root wires to the broker in
// this process or to the cluster's channel) and then sends the deployments still pending
// (a restart loses none: they are pending in the catalog until the edge confirms them).
// Every sweep period it fails the apps that waited for the edge agent's answer for longer than
// the deployment time-out (service.expirePending).
// stop() stops hearing reports and the sweep; the catalog keeps the states and pending deployments.
import { every, MICROS_PER_MS, systemClock } from '../../core/clock/clock.ts'
import type { Running } from '../running.ts'
import { ControlsAppService, type ControlsServiceDeps } from './service.ts'

/** The sweep's period: a tenth of the time-out, at most 5 s (a start fails 60-65 s after it was sent by default). */
const sweepMs = (timeoutMs: number) => Math.max(100, Math.min(5_000, timeoutMs / 10))

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
  const clock = deps.clock ?? systemClock
  const sweep = every(clock, () => {
    service.expirePending().catch((err) => deps.log?.warn({ err }, 'controls apps: the deployment time-out sweep failed'))
  }, sweepMs(service.deployTimeoutMs) * MICROS_PER_MS)
  return { service, stop: async () => { sweep(); await reports.stop() } }
}
