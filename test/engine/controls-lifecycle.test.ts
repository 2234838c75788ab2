// The lifecycle table of controls apps (engine/controls/lifecycle.ts; issue 31 item 1): the
// moves docs/controls-apps.md lists, the refusals with their texts, and the requests that
// change nothing (`affected: false`).
import t from 'tap'
import { TransitionRefusedError } from '../../engine/lifecycle.ts'
import { APP_LIFECYCLE, CREATED, DELETING, FAILED, RUNNING, STARTING, STOPPED, STOPPING, unaffected } from '../../engine/controls/lifecycle.ts'

t.test('the spec\'s moves: Created or Stopped → Starting; not running → Deleting', async (t) => {
  for (const from of [CREATED, STOPPED, FAILED, STOPPING]) t.equal(APP_LIFECYCLE.next(from, 'run', 'a'), STARTING, `run from ${from}`)
  for (const from of [CREATED, STOPPED, FAILED]) t.equal(APP_LIFECYCLE.next(from, 'delete', 'a'), DELETING, `delete from ${from}`)
  for (const from of [STARTING, RUNNING, FAILED]) t.equal(APP_LIFECYCLE.next(from, 'stop', 'a'), STOPPING, `stop from ${from}`)
  t.same([APP_LIFECYCLE.text(100), APP_LIFECYCLE.text(200), APP_LIFECYCLE.text(202), APP_LIFECYCLE.text(300), APP_LIFECYCLE.text(302), APP_LIFECYCLE.text(201), APP_LIFECYCLE.text(500)],
    ['Created', 'Starting', 'Running', 'Stopping', 'Stopped', 'Failed', 'Deleting'])
})

t.test('delete refused while running, anything refused while deleting (409 with the reason)', async (t) => {
  for (const from of [STARTING, RUNNING, STOPPING]) {
    t.throws(() => APP_LIFECYCLE.next(from, 'delete', 'x'), new TransitionRefusedError("Controls app 'x' is running: stop it first (POST /v2/controls/app/{controls_app_id}/run?run=false) and delete it once it is Stopped", from, 'delete'))
  }
  t.throws(() => APP_LIFECYCLE.next(DELETING, 'run', 'x'), { message: "Controls app 'x' is being deleted", status: 409 })
  t.throws(() => APP_LIFECYCLE.next(DELETING, 'delete', 'x'), { message: "Controls app 'x' is already being deleted" })
})

t.test('the edge\'s reports: facts from every deployed state, never for an app not deployed; Deleted only while deleting', async (t) => {
  for (const from of [STARTING, RUNNING, STOPPING, STOPPED, FAILED]) {
    t.equal(APP_LIFECYCLE.next(from, 'edge_running', 'a'), RUNNING)
    t.equal(APP_LIFECYCLE.next(from, 'edge_stopped', 'a'), STOPPED)
    t.equal(APP_LIFECYCLE.next(from, 'edge_failed', 'a'), FAILED)
    t.notOk(APP_LIFECYCLE.allows(from, 'edge_deleted'))
  }
  t.notOk(APP_LIFECYCLE.allows(CREATED, 'edge_running'), 'an app never deployed')
  t.notOk(APP_LIFECYCLE.allows(DELETING, 'edge_running'), 'a deleting app waits for Deleted')
  t.ok(APP_LIFECYCLE.allows(DELETING, 'edge_deleted'))
})

t.test('requests that change nothing', async (t) => {
  t.same([STARTING, RUNNING].map((c) => unaffected(c, true)), [true, true])
  t.same([CREATED, STOPPED, STOPPING, FAILED].map((c) => unaffected(c, true)), [false, false, false, false])
  t.same([CREATED, STOPPED, STOPPING].map((c) => unaffected(c, false)), [true, true, true])
  t.same([STARTING, RUNNING, FAILED].map((c) => unaffected(c, false)), [false, false, false])
})

t.test('the deployment time-out: Starting → Failed, from no other state', async (t) => {
  t.equal(APP_LIFECYCLE.next(STARTING, 'deploy_timeout', 'a'), FAILED)
  t.equal(APP_LIFECYCLE.next(STOPPING, 'deploy_timeout', 'a'), FAILED)
  for (const from of [CREATED, RUNNING, STOPPED, FAILED, DELETING]) t.notOk(APP_LIFECYCLE.allows(from, 'deploy_timeout'), `not from ${from}`)
})
