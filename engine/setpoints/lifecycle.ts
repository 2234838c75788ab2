// The lifecycle of a setpoint write operation (spec 2 "Setpoint write operation" and its
// table in "States and transitions"): the one table the service asks (engine/lifecycle.ts).
// Pure data. The spec's states keep their names; the codes are ours (the API shows the names).
//
//   POST /v2/datapoint/setpoint ─> initialized (1)
//   initialized ─send─> requested (2)        the NEWSPT is on its way to the edge device
//   requested ─accepted─> requested          the edge confirmed receipt (log entry only)
//   requested ─written─> written (3)         the edge wrote (or simulated, in a dry run)
//
// The final failed state, which the spec leaves open ("not shown"), is failed (4). It is
// reached (spec 2 rule 4: any error fails the whole operation, nothing is rolled back) by
//   refused   the edge device refused (the reason is logged), from requested
//   timeout   no `written` or `refused` within the time-out (edge unreachable), from requested
//   ended     the operation cannot go on: the NEWSPT could not be published, the platform
//             stopped before publishing it, or its project is being deleted; from
//             initialized or requested
// written and failed are final.
import { defineLifecycle } from '../lifecycle.ts'

export type SetpointTrigger = 'send' | 'accepted' | 'written' | 'refused' | 'timeout' | 'ended'

export const INITIALIZED = 1
export const REQUESTED = 2
export const WRITTEN = 3
export const FAILED = 4

export const SETPOINT_LIFECYCLE = defineLifecycle<SetpointTrigger>({
  resource: 'Setpoint operation',
  states: { [INITIALIZED]: 'initialized', [REQUESTED]: 'requested', [WRITTEN]: 'written', [FAILED]: 'failed' },
  initial: INITIALIZED,
  running: [INITIALIZED, REQUESTED],
  transitions: [
    { trigger: 'send', from: [INITIALIZED], to: REQUESTED },
    { trigger: 'accepted', from: [REQUESTED], to: REQUESTED },
    { trigger: 'written', from: [REQUESTED], to: WRITTEN },
    { trigger: 'refused', from: [REQUESTED], to: FAILED },
    { trigger: 'timeout', from: [REQUESTED], to: FAILED },
    { trigger: 'ended', from: [INITIALIZED, REQUESTED], to: FAILED },
  ],
})

/** The code of a status name as stored in the catalog. */
export function codeOf(status: string): number {
  const found = Object.entries(SETPOINT_LIFECYCLE.table.states).find(([, name]) => name === status)
  if (!found) throw new Error(`unknown setpoint status '${status}'`)
  return Number(found[0])
}
