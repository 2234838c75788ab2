// The lifecycle of a controls app (spec 2 "Controls app" in "States and transitions"; issue 31
// item 1): the one table the API and the controls-app service ask (engine/lifecycle.ts). Pure.
// The platform keeps the app's definition and state; the edge agent runs it and reports
// (APPSTATE), so the states a request reaches are "…ing" states that the edge's answer ends:
//
//   POST /v2/controls/app ─> Created (100)
//   run=true  (Created, Stopping, Stopped, Failed) ─> Starting (200) ─edge Running─> Running (202)
//   run=false (Starting, Running, Failed) ─> Stopping (300) ─edge Stopped─> Stopped (302)
//   the edge cannot run it ─edge Failed─> Failed (201, the spec's code of a failed start)
//   no edge agent answers a start or a stop in time ─deploy_timeout─> Failed (the deployment
//     stays pending: an answer later moves the app as the agent reports)
//   DELETE (Created, Stopped, Failed: not running) ─> Deleting (500) ─edge Deleted─> removed;
//     no answer within the time-out: removed too (the agent is told at its next APPSYNC)
//
// The edge's reports are facts, taken from every deployed state but Deleting (it also stops
// and restarts apps on its own: reset after a lost connection, auto-recovery). Where the
// spec is silent ("Other controls app states and transitions: not shown") these are ours; a run
// of a running app and a stop of a stopped one are not errors: the answer says
// `affected: false` (the service checks `unaffected` before asking the table).
import { defineLifecycle } from '../lifecycle.ts'

export type AppTrigger = 'run' | 'stop' | 'delete' | 'deploy_timeout' | 'edge_running' | 'edge_stopped' | 'edge_failed' | 'edge_deleted'

export const CREATED = 100
export const STARTING = 200
export const FAILED = 201
export const RUNNING = 202
export const STOPPING = 300
export const STOPPED = 302
export const DELETING = 500

const DEPLOYED = [STARTING, FAILED, RUNNING, STOPPING, STOPPED]

export const APP_LIFECYCLE = defineLifecycle<AppTrigger>({
  resource: 'Controls app',
  states: {
    [CREATED]: 'Created', [STARTING]: 'Starting', [FAILED]: 'Failed', [RUNNING]: 'Running',
    [STOPPING]: 'Stopping', [STOPPED]: 'Stopped', [DELETING]: 'Deleting',
  },
  initial: CREATED,
  running: [STARTING, RUNNING, STOPPING],
  transitions: [
    { trigger: 'run', from: [CREATED, STOPPING, STOPPED, FAILED], to: STARTING },
    { trigger: 'stop', from: [STARTING, RUNNING, FAILED], to: STOPPING },
    { trigger: 'delete', from: [CREATED, STOPPED, FAILED], to: DELETING },
    { trigger: 'deploy_timeout', from: [STARTING, STOPPING], to: FAILED },
    { trigger: 'edge_running', from: DEPLOYED, to: RUNNING },
    { trigger: 'edge_stopped', from: DEPLOYED, to: STOPPED },
    { trigger: 'edge_failed', from: DEPLOYED, to: FAILED },
    { trigger: 'edge_deleted', from: [DELETING], to: DELETING },
  ],
  refusals: [
    { trigger: 'run', from: [DELETING], reason: 'is being deleted' },
    { trigger: 'stop', from: [DELETING], reason: 'is being deleted' },
    { trigger: 'delete', from: [STARTING, RUNNING, STOPPING], reason: 'is running: stop it first (POST /v2/controls/app/{controls_app_id}/run?run=false) and delete it once it is Stopped' },
    { trigger: 'delete', from: [DELETING], reason: 'is already being deleted' },
  ],
})

/** A run of an app that runs (or starts), or a stop of one that does not run: nothing to do. */
export function unaffected(code: number, run: boolean): boolean {
  return run ? code === STARTING || code === RUNNING : code === CREATED || code === STOPPED || code === STOPPING
}

/** The edge's reported state as the table's trigger. */
export const EDGE_TRIGGER = { Running: 'edge_running', Stopped: 'edge_stopped', Failed: 'edge_failed', Deleted: 'edge_deleted' } as const
