// The setpoint runtime in the one module shape (engine/running.ts): started, it hears the edge
// devices' answers (through `answers`, which the composition root wires to the broker in this
// process or to the cluster's answer channel) and re-arms the deadlines of operations still
// waiting (ending those never sent); stop() stops hearing answers and clears the timers (the
// catalog keeps the deadlines for the next start).
import type { Running } from '../running.ts'
import { SetpointService, type SetpointServiceDeps } from './service.ts'

export interface SetpointsDeps extends SetpointServiceDeps {
  /** Starts delivering the edge's answers to the service; stopped first on stop(). */
  answers: (service: SetpointService) => Promise<Running>
}

export async function startSetpoints(deps: SetpointsDeps): Promise<Running & { service: SetpointService }> {
  const service = new SetpointService(deps)
  // Answers are heard before the resume, so none arriving meanwhile is missed.
  const answers = await deps.answers(service)
  try {
    await service.resume()
  } catch (err) {
    await answers.stop()
    throw err
  }
  return {
    service,
    stop: async () => {
      await answers.stop()
      service.stopAll()
    },
  }
}
