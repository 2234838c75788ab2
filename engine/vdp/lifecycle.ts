// The lifecycle of a virtual datapoint (spec part 2, "Status codes of virtual datapoints" and
// "States and transitions"): the one table the route, the runtime and the catalog's callers
// use (engine/lifecycle.ts). Pure data.
//
//   create ─> Created (100) ─ready (automatic)─> Ready to start (102)
//   run=true ─> Starting (200) ─started─> Running (202), or ─start_failed─> Start failed (201)
//   run=false ─> Stopping (300) ─stopped─> Stopped (302)
//   the running pipeline fails ─health_check_failed─> Health check failed (304)
//   DELETE (not while running) ─> Deleting (500), then the record is removed
//
// Decisions where the spec is silent ("not shown"): run is allowed from every state that is
// not running or being deleted, also from Created before the automatic move (a client may be
// faster than it) and from Start failed, Stopped and Health check failed (a restart); delete
// likewise from every state that is not running. Start failed is also reached from Running when
// a restarted process cannot start it again. Creation failed (101), Stop failed (301), Stopped
// due to technical maintenance (303) and Delete failed (501) are known texts that nothing
// enters yet.
import { defineLifecycle } from '../lifecycle.ts'

export type VdpTrigger = 'ready' | 'run' | 'started' | 'start_failed' | 'stop' | 'stopped' | 'health_check_failed' | 'delete'

const RUNNING = [200, 202, 300]
const IDLE = [100, 102, 201, 301, 302, 303, 304]

export const VDP_LIFECYCLE = defineLifecycle<VdpTrigger>({
  resource: 'Virtual datapoint',
  states: {
    100: 'Created', 101: 'Creation failed', 102: 'Ready to start',
    200: 'Starting', 201: 'Start failed', 202: 'Running',
    300: 'Stopping', 301: 'Stop failed', 302: 'Stopped', 303: 'Stopped due to technical maintenance', 304: 'Health check failed',
    500: 'Deleting', 501: 'Delete failed',
  },
  initial: 100,
  running: [200, 202],
  transitions: [
    { trigger: 'ready', from: [100], to: 102, automatic: true },
    { trigger: 'run', from: IDLE, to: 200 },
    { trigger: 'started', from: [200], to: 202 },
    { trigger: 'start_failed', from: [200, 202], to: 201 },
    { trigger: 'stop', from: RUNNING, to: 300 },
    { trigger: 'stopped', from: [300], to: 302 },
    { trigger: 'health_check_failed', from: [200, 202], to: 304 },
    { trigger: 'delete', from: [...IDLE, 101, 501], to: 500 },
  ],
  refusals: [
    { trigger: 'run', from: RUNNING, reason: 'is already running' },
    { trigger: 'run', from: [500], reason: 'is being deleted' },
    { trigger: 'stop', from: [...IDLE, 101, 500, 501], reason: 'is not running' },
    { trigger: 'delete', from: RUNNING, reason: 'is running: stop it (run=false) before deleting it' },
  ],
})
