// One lifecycle pattern for every managed resource (issue 16 item 4; DESIGN.md "Layout": one
// pure lifecycle table per resource, owned by the engine). A table lists the states (the
// spec's codes and texts), the initial state, and the allowed transitions, each named by its
// trigger (a request, or something the runtime observed). Routes, runtimes and the catalog ask
// the table instead of keeping their own codes: virtual datapoints now; setpoint operations,
// controls apps and analyses define their own table with defineLifecycle the same way.
//
// Pure: no I/O, no clock. Who writes the status (and when) stays with the resource's runtime;
// the table only says which move is allowed and where it leads. A refused move is a
// TransitionRefusedError (409), with the resource's own text where the table gives one
// (`refusals`), else one that names the state and the states the trigger is allowed from.
import { ConflictError } from '../core/errors.ts'

export interface Transition<T extends string> {
  trigger: T
  from: readonly number[]
  to: number
  /** Taken on its own, without a request, as soon as the state is reached (e.g. Created → Ready to start). */
  automatic?: boolean
}

export interface Refusal<T extends string> {
  trigger: T
  from: readonly number[]
  /** Completes "<resource> '<name>' ...", e.g. "is already running". */
  reason: string
}

export interface LifecycleTable<T extends string> {
  /** How errors name the resource, e.g. "Virtual datapoint". */
  resource: string
  /** Status code → status text. */
  states: Readonly<Record<number, string>>
  /** The state a new resource has. */
  initial: number
  /** States in which the resource's runtime keeps it running (resumed after a restart). */
  running: readonly number[]
  transitions: readonly Transition<T>[]
  refusals?: readonly Refusal<T>[]
}

/** A move the table does not allow; 409. */
export class TransitionRefusedError extends ConflictError {
  override readonly name = 'TransitionRefusedError'
  constructor(message: string, readonly from: number, readonly trigger: string) {
    super(message, 'TRANSITION_REFUSED')
  }
}

export interface Lifecycle<T extends string> {
  readonly table: LifecycleTable<T>
  readonly initial: number
  readonly running: readonly number[]
  /** The status text of `code` (the code itself if the table does not know it). */
  text(code: number): string
  /** Whether `trigger` is allowed from `from`. */
  allows(from: number, trigger: T): boolean
  /** The state `trigger` leads to from `from`; throws TransitionRefusedError naming `name`. */
  next(from: number, trigger: T, name: string): number
  /** The automatic transition out of `from`, if any. */
  automatic(from: number): Transition<T> | undefined
}

/** Checks a table (each code known, one transition per state and trigger) and answers from it. */
export function defineLifecycle<T extends string>(table: LifecycleTable<T>): Lifecycle<T> {
  const known = (code: number, where: string) => {
    if (!Object.hasOwn(table.states, code)) throw new Error(`${table.resource} lifecycle: ${where} names unknown state ${code}`)
  }
  known(table.initial, 'initial')
  for (const code of table.running) known(code, 'running')
  const moves = new Map<string, Transition<T>>()
  const key = (from: number, trigger: string) => `${from} ${trigger}`
  for (const tr of table.transitions) {
    known(tr.to, `${tr.trigger} to`)
    for (const from of tr.from) {
      known(from, `${tr.trigger} from`)
      if (moves.has(key(from, tr.trigger))) throw new Error(`${table.resource} lifecycle: two transitions for ${tr.trigger} from ${from}`)
      moves.set(key(from, tr.trigger), tr)
    }
  }
  const reasons = new Map<string, string>()
  for (const r of table.refusals ?? []) {
    for (const from of r.from) {
      known(from, `refusal of ${r.trigger} from`)
      if (moves.has(key(from, r.trigger))) throw new Error(`${table.resource} lifecycle: ${r.trigger} from ${from} is both allowed and refused`)
      reasons.set(key(from, r.trigger), r.reason)
    }
  }
  const text = (code: number) => (Object.hasOwn(table.states, code) ? table.states[code] : String(code))

  return {
    table,
    initial: table.initial,
    running: table.running,
    text,
    allows: (from, trigger) => moves.has(key(from, trigger)),
    next: (from, trigger, name) => {
      const move = moves.get(key(from, trigger))
      if (move) return move.to
      const reason = reasons.get(key(from, trigger))
      if (reason !== undefined) throw new TransitionRefusedError(`${table.resource} '${name}' ${reason}`, from, trigger)
      const allowed = table.transitions.filter((t) => t.trigger === trigger).flatMap((t) => t.from).map((c) => `${text(c)} (${c})`)
      throw new TransitionRefusedError(`${table.resource} '${name}': ${trigger} is not allowed while ${text(from)} (${from})` +
        (allowed.length > 0 ? `; it is allowed from ${allowed.join(', ')}` : `; ${trigger} is not a transition of this resource`), from, trigger)
    },
    automatic: (from) => table.transitions.find((t) => t.automatic && t.from.includes(from)),
  }
}
