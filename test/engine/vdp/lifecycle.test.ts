// The lifecycle table of virtual datapoints (engine/vdp/lifecycle.ts) against spec part 2:
// the status codes and texts, every allowed transition with its trigger, and the refusals the
// API answers with 409.
import t from 'tap'
import { TransitionRefusedError } from '../../../engine/lifecycle.ts'
import { VDP_LIFECYCLE, type VdpTrigger } from '../../../engine/vdp/lifecycle.ts'

// Spec part 2, "Status codes of virtual datapoints".
const SPEC_STATES: Record<number, string> = {
  100: 'Created', 101: 'Creation failed', 102: 'Ready to start', 200: 'Starting', 201: 'Start failed', 202: 'Running',
  300: 'Stopping', 301: 'Stop failed', 302: 'Stopped', 303: 'Stopped due to technical maintenance', 304: 'Health check failed',
  500: 'Deleting', 501: 'Delete failed',
}
const CODES = Object.keys(SPEC_STATES).map(Number)
const TRIGGERS: VdpTrigger[] = ['ready', 'run', 'started', 'start_failed', 'stop', 'stopped', 'health_check_failed', 'delete']

// Every allowed move, written out: [from, trigger, to].
const ALLOWED: [number, VdpTrigger, number][] = [
  [100, 'ready', 102],
  ...[100, 102, 201, 301, 302, 303, 304].map((from): [number, VdpTrigger, number] => [from, 'run', 200]),
  [200, 'started', 202],
  [200, 'start_failed', 201], [202, 'start_failed', 201],
  [200, 'stop', 300], [202, 'stop', 300], [300, 'stop', 300],
  [300, 'stopped', 302],
  [200, 'health_check_failed', 304], [202, 'health_check_failed', 304],
  ...[100, 101, 102, 201, 301, 302, 303, 304, 501].map((from): [number, VdpTrigger, number] => [from, 'delete', 500]),
]

t.test('the states are the spec status table; a new virtual datapoint is Created; Starting and Running run', async (t) => {
  for (const code of CODES) t.equal(VDP_LIFECYCLE.text(code), SPEC_STATES[code], String(code))
  t.same(Object.keys(VDP_LIFECYCLE.table.states).map(Number), CODES, 'no other states')
  t.equal(VDP_LIFECYCLE.initial, 100)
  t.same(VDP_LIFECYCLE.running, [200, 202])
})

t.test('every allowed transition leads where the spec says', async (t) => {
  for (const [from, trigger, to] of ALLOWED) t.equal(VDP_LIFECYCLE.next(from, trigger, 'x'), to, `${from} --${trigger}--> ${to}`)
  t.match(VDP_LIFECYCLE.automatic(100), { trigger: 'ready', to: 102 }, 'Created → Ready to start on its own')
  for (const code of CODES.filter((c) => c !== 100)) t.equal(VDP_LIFECYCLE.automatic(code), undefined, `nothing automatic from ${code}`)
})

t.test('every other move is refused with a 409 naming the virtual datapoint', async (t) => {
  const allowed = new Set(ALLOWED.map(([from, trigger]) => `${from} ${trigger}`))
  for (const from of CODES) {
    for (const trigger of TRIGGERS) {
      if (allowed.has(`${from} ${trigger}`)) continue
      t.throws(() => VDP_LIFECYCLE.next(from, trigger, 'ahu1/delta_t'), { name: 'TransitionRefusedError', status: 409, message: /^Virtual datapoint 'ahu1\/delta_t'/ }, `${from} ${trigger}`)
    }
  }
})

t.test('the refusal texts the API answers with', async (t) => {
  const message = (from: number, trigger: VdpTrigger) => {
    try { VDP_LIFECYCLE.next(from, trigger, 'sum') } catch (err) { if (err instanceof TransitionRefusedError) return err.message }
    return 'allowed'
  }
  t.equal(message(202, 'run'), "Virtual datapoint 'sum' is already running")
  t.equal(message(500, 'run'), "Virtual datapoint 'sum' is being deleted")
  t.equal(message(302, 'stop'), "Virtual datapoint 'sum' is not running")
  t.equal(message(202, 'delete'), "Virtual datapoint 'sum' is running: stop it (run=false) before deleting it")
  t.equal(message(304, 'started'), "Virtual datapoint 'sum': started is not allowed while Health check failed (304); it is allowed from Starting (200)")
})
