// The generic lifecycle helper (engine/lifecycle.ts): a table is checked when it is defined,
// allowed moves lead where the table says, refused ones throw a 409 naming the resource, the
// state and where the trigger is allowed from (or the table's own reason).
import t from 'tap'
import { ConflictError } from '../../core/errors.ts'
import { defineLifecycle, type LifecycleTable, TransitionRefusedError } from '../../engine/lifecycle.ts'

type T = 'send' | 'ack' | 'fail' | 'queue'
const table: LifecycleTable<T> = {
  resource: 'Setpoint operation',
  states: { 1: 'initialized', 2: 'requested', 3: 'written', 4: 'failed' },
  initial: 1,
  running: [2],
  transitions: [
    { trigger: 'send', from: [1], to: 2 },
    { trigger: 'ack', from: [2], to: 3 },
    { trigger: 'fail', from: [1, 2], to: 4 },
  ],
  refusals: [{ trigger: 'send', from: [2], reason: 'was already sent' }],
}

t.test('allowed moves, texts, initial and running states', async (t) => {
  const l = defineLifecycle(table)
  t.equal(l.initial, 1)
  t.same(l.running, [2])
  t.equal(l.next(1, 'send', 'op-1'), 2)
  t.equal(l.next(2, 'ack', 'op-1'), 3)
  t.equal(l.next(2, 'fail', 'op-1'), 4)
  t.ok(l.allows(1, 'fail'))
  t.notOk(l.allows(3, 'fail'))
  t.equal(l.text(3), 'written')
  t.equal(l.text(99), '99', 'an unknown code shows as itself')
  t.equal(l.automatic(1), undefined, 'no automatic transitions in this table')
})

t.test('refused moves: a 409 with the table reason, or one naming the state and the allowed ones', async (t) => {
  const l = defineLifecycle(table)
  const refused = (fn: () => unknown) => { try { fn() } catch (err) { return err } return undefined }
  const withReason = refused(() => l.next(2, 'send', 'op-1'))
  t.ok(withReason instanceof TransitionRefusedError && withReason instanceof ConflictError, 'a ConflictError: the API answers 409')
  t.match(withReason, { message: "Setpoint operation 'op-1' was already sent", status: 409, from: 2, trigger: 'send' })
  t.equal((refused(() => l.next(3, 'fail', 'op-1')) as Error).message,
    "Setpoint operation 'op-1': fail is not allowed while written (3); it is allowed from initialized (1), requested (2)")
  t.equal((refused(() => l.next(1, 'queue', 'op-1')) as Error).message,
    "Setpoint operation 'op-1': queue is not allowed while initialized (1); queue is not a transition of this resource")
})

t.test('automatic transitions are found from their state', async (t) => {
  const l = defineLifecycle({ ...table, transitions: [...table.transitions, { trigger: 'queue', from: [4], to: 1, automatic: true }] })
  t.match(l.automatic(4), { trigger: 'queue', to: 1 })
  t.equal(l.automatic(1), undefined)
})

t.test('a table is checked when it is defined', async (t) => {
  t.throws(() => defineLifecycle({ ...table, initial: 7 }), /Setpoint operation lifecycle: initial names unknown state 7/)
  t.throws(() => defineLifecycle({ ...table, running: [5] }), /running names unknown state 5/)
  t.throws(() => defineLifecycle({ ...table, transitions: [{ trigger: 'send', from: [1], to: 9 }] }), /send to names unknown state 9/)
  t.throws(() => defineLifecycle({ ...table, transitions: [{ trigger: 'send', from: [8], to: 2 }] }), /send from names unknown state 8/)
  t.throws(() => defineLifecycle({ ...table, transitions: [...table.transitions, { trigger: 'send', from: [1], to: 3 }] }), /two transitions for send from 1/)
  t.throws(() => defineLifecycle({ ...table, refusals: [{ trigger: 'ack', from: [2], reason: 'no' }] }), /ack from 2 is both allowed and refused/)
})
