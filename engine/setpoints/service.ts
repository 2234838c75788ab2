// The setpoint service (spec 2 "Setpoint write operation", spec 3 "Controls messages"; issue
// 11 item 2): runs one operation from the API's request to the edge device's answer.
//   request()   records the operation (initialized), records it as sent (requested) and only
//               then publishes NEWSPT on CONTROLS/<group>/<handle>, so an answer can never
//               overtake its own state; an acknowledged operation gets a deadline
//   onAnswer    decoded SPTACK answers (ingest/mqtt/setpoint-link.ts): accepted (log entry),
//               written (log entry with priorityArray and overwritten_value; old_value), refused
//               (failed). The wire codecs stay outside the engine (protocol/ via ingest/).
//   time-out    an acknowledged operation still `requested` at its deadline fails: the edge
//               device is unreachable (DEFAULT_TIMEOUT_MS unless configured)
//   resume()    after a restart: `requested` operations get their remaining time (answers
//               are matched by reference from the catalog); `initialized` ones were never
//               published and fail (a write must not start late, spec 2: "cannot be delayed")
//   stopProject a project being deleted ends its pending operations (engine/project-runtimes.ts)
// An answer is taken only from the operation's own project (the broker admits only that
// project's write accounts with the datapoint in their reach) and for the operation's
// datapoint; any other answer, and one for an operation already final, is ignored and counted.
// Scaled mode (several API processes hear every answer and may all time out an operation):
// each state change is conditional on the state read (catalog advance), so only the first
// writes its log entry; an `accepted` entry already in the log is not repeated.
// Unacknowledged operations (spec 2 rule 3) stay `requested`: the edge answers nothing.
import { randomUUID } from 'node:crypto'
import type { NewSetpointOperation, SetpointLogEntry, SetpointOperation } from '../../catalog/setpoints.ts'
import type { SetpointsPort } from '../../catalog/port.ts'
import { FAILED, REQUESTED, SETPOINT_LIFECYCLE, WRITTEN, codeOf, type SetpointTrigger } from './lifecycle.ts'
import { MICROS_PER_MS, nowMs, systemClock, type Cancel, type Clock } from '../../core/clock/clock.ts'

export const DEFAULT_TIMEOUT_MS = 10_000

/** What the edge is asked to do; encoded as NEWSPT by the caller (ingest/mqtt/setpoint-link.ts). */
export interface SetpointWrite {
  datapoint: string; value: number | null; priority: number; reference: string; acked: boolean; dryrun: boolean; keep_out_of_service: boolean
}

/** A decoded answer of the edge (SPTACK, protocol/setpoint-messages.ts). */
export interface SetpointAnswer {
  reference: string
  datapoint: string
  result: 'accepted' | 'written' | 'refused'
  priorityArray?: (number | null)[]
  present_value?: number | null
  effective?: boolean
  reason?: string
}

/** Who sent an answer: the project of the broker account, and its username. */
export interface AnswerSource { projectId: number; username: string }

export interface SetpointServiceDeps {
  setpoints: Pick<SetpointsPort, 'create' | 'advance' | 'find' | 'listAwaiting'>
  /** Publishes the write as NEWSPT to the project's CONTROLS topic; resolves with the topic. */
  publish: (projectId: number, write: SetpointWrite) => Promise<string>
  timeoutMs?: number
  /** Time of the log entries and of the time-outs (core/clock; default the system clock). */
  clock?: Clock
  log?: { warn(obj: object, msg: string): void }
}

export interface SetpointRequest {
  projectId: number
  dataPointID: string
  value: number | null
  priority: number
  acked: boolean
  dryrun: boolean
  keepOutOfService: boolean
  requestedBy: string
}

const ACCEPTED = 'Accepted by the edge device'
const text = (code: number) => SETPOINT_LIFECYCLE.text(code)
const show = (v: number | null | undefined) => (v === null || v === undefined ? 'null' : String(v))

export class SetpointService {
  readonly timeoutMs: number
  private readonly clock: Clock
  private readonly timers = new Map<string, Cancel>()
  /** Per operation, the tail of its serialized updates (one answer at a time). */
  private readonly chains = new Map<string, Promise<unknown>>()
  readonly counters = { requested: 0, written: 0, failed: 0, answers_ignored: 0 }

  constructor (private readonly deps: SetpointServiceDeps) {
    this.timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.clock = deps.clock ?? systemClock
  }

  /** Milliseconds: deadlines and creation times are stored in ms. */
  private now(): number {
    return nowMs(this.clock)
  }

  private time(at = this.now()): string {
    return new Date(at).toISOString()
  }

  /** Starts an operation; it has left `initialized` (requested or failed) when this resolves. */
  async request(r: SetpointRequest): Promise<SetpointOperation> {
    // One instant for the creation and its log entry: the deadline counts from it, so the
    // time-out's entry is never less than the window after the first one (two clock reads
    // could put the first entry a millisecond after the creation).
    const createdAt = this.now()
    const op: NewSetpointOperation = {
      reference: randomUUID(), project_id: r.projectId, dataPointID: r.dataPointID, value: r.value, priority: r.priority,
      acked: r.acked, dryrun: r.dryrun, keep_out_of_service: r.keepOutOfService, requested_by: r.requestedBy,
      created_at: createdAt, deadline: null, status: text(SETPOINT_LIFECYCLE.initial),
      log: [{ msg: `Setpoint ${show(r.value)} at priority ${r.priority} requested by ${r.requestedBy}`, status: text(SETPOINT_LIFECYCLE.initial), time: this.time(createdAt), acked: r.acked, dryrun: r.dryrun }],
    }
    await this.deps.setpoints.create(op)
    this.counters.requested++
    // Counted from the request: the time-out message derives the window from deadline - creation.
    const deadline = r.acked ? op.created_at + this.timeoutMs : null
    let sent = await this.move(op.reference, 'send', 'Request sent to the edge device', { deadline })
    // Another API process ended it meanwhile (its resume() at start fails `initialized` ones): not sent.
    if (!sent) return (await this.deps.setpoints.find(op.reference))!
    if (deadline !== null) this.arm(op.reference, deadline, op.created_at) // before publishing: an answer then finds it armed
    try {
      await this.deps.publish(r.projectId, {
        datapoint: r.dataPointID, value: r.value, priority: r.priority, reference: op.reference,
        acked: r.acked, dryrun: r.dryrun, keep_out_of_service: r.keepOutOfService,
      })
    } catch (err) {
      sent = await this.move(op.reference, 'ended', `The request could not be sent to the edge device: ${(err as Error).message}`)
    }
    return sent ?? (await this.deps.setpoints.find(op.reference))!
  }

  /** An answer of the edge device (decoded SPTACK from a write account of `c.projectId`). */
  onAnswer(c: AnswerSource, ack: SetpointAnswer): Promise<void> {
    return this.serial(ack.reference, () => this.answer(c, ack))
  }

  /** An answer that could not be decoded: counted and logged, nothing moves. */
  ignoredAnswer(c: AnswerSource, why: string): void {
    this.ignored(c, why)
  }

  private async answer(c: AnswerSource, ack: SetpointAnswer): Promise<void> {
    const op = await this.deps.setpoints.find(ack.reference)
    if (!op || op.project_id !== c.projectId) return this.ignored(c, `no setpoint operation '${ack.reference}' in project ${c.projectId}`)
    if (op.dataPointID !== ack.datapoint) return this.ignored(c, `operation '${ack.reference}' writes '${op.dataPointID}', not '${ack.datapoint}'`)
    if (codeOf(op.status) !== REQUESTED) return this.ignored(c, `operation '${ack.reference}' is already ${op.status}`)
    const by = `(edge account ${c.username})`
    if (ack.result === 'accepted') {
      // Several API processes hear the same answer (scaled mode): one entry is enough.
      if (op.log.some((e) => e.msg.startsWith(ACCEPTED))) return
      await this.move(op.reference, 'accepted', `${ACCEPTED} ${by}`)
      return
    }
    if (ack.result === 'refused') {
      await this.move(op.reference, 'refused', `Refused by the edge device ${by}: ${ack.reason}`)
      return
    }
    const before = ack.priorityArray!
    const old = before[op.priority - 1]
    const winner = before.findIndex((v, i) => i < op.priority - 1 && v !== null)
    const effective = ack.effective ?? winner < 0
    const msg = op.dryrun
      ? `Dry run: the edge device checked the write and wrote nothing ${by}`
      : effective
        ? `Written at priority ${op.priority} ${by}`
        : `Written at priority ${op.priority} ${by}, without effect: priority ${winner + 1} holds the non-null value ${show(before[winner])}, which wins (spec 2 rule 5)`
    await this.move(op.reference, 'written', msg, { old_value: show(old) }, {
      priorityArray: before, overwritten_value: show(old), present_value: ack.present_value ?? null, effective,
    })
  }

  /** Re-arms the deadlines of operations still waiting after a restart; fails unsent ones. */
  async resume(): Promise<{ waiting: number; ended: number }> {
    let waiting = 0
    let ended = 0
    for (const op of await this.deps.setpoints.listAwaiting()) {
      if (codeOf(op.status) === REQUESTED && op.deadline !== null) {
        this.arm(op.reference, op.deadline, op.created_at)
        waiting++
      } else {
        await this.move(op.reference, 'ended', 'The platform stopped before the request was sent to the edge device; nothing was sent')
        ended++
      }
    }
    return { waiting, ended }
  }

  /** Ends the pending operations of a project being deleted (unacknowledged ones await nothing). */
  async stopProject(projectId: number): Promise<void> {
    for (const op of await this.deps.setpoints.listAwaiting(projectId)) {
      await this.serial(op.reference, () => this.move(op.reference, 'ended', `Project ${projectId} is being deleted; the operation ends without an answer`))
    }
  }

  /** Deadlines armed plus updates under way in this process (0: nothing left to do here). */
  get busy(): number {
    return this.timers.size + this.chains.size
  }

  /** Clears every timer (shutdown); the catalog keeps the deadlines for resume(). */
  stopAll(): void {
    for (const cancel of this.timers.values()) cancel()
    this.timers.clear()
  }

  /** `createdAt`: the operation's; the time-out message names its own window (deadline - creation), also after a restart with another LINTEL_SETPOINT_TIMEOUT_MS. */
  private arm(reference: string, deadline: number, createdAt: number): void {
    // The clock never runs a timer before its time, so the entry is never logged early.
    const cancel = this.clock.at(() => {
      this.timers.delete(reference)
      const seconds = (deadline - createdAt) / 1000
      this.serial(reference, () => this.move(reference, 'timeout',
        `No answer from the edge device within ${seconds} s: the edge device is unreachable`)).catch((err) => this.deps.log?.warn({ err, reference }, 'setpoints: time-out not recorded'))
    }, deadline * MICROS_PER_MS)
    this.timers.set(reference, cancel)
  }

  /** Applies `trigger` if the table allows it from the current state; undefined when it does not. */
  private async move(reference: string, trigger: SetpointTrigger, msg: string, change: { old_value?: string | null; deadline?: number | null } = {}, extra: Partial<SetpointLogEntry> = {}): Promise<SetpointOperation | undefined> {
    const op = await this.deps.setpoints.find(reference)
    if (!op || !SETPOINT_LIFECYCLE.allows(codeOf(op.status), trigger)) return undefined
    const to = SETPOINT_LIFECYCLE.next(codeOf(op.status), trigger, reference)
    // Conditional: another API process may have moved it since the read (scaled mode).
    const moved = await this.deps.setpoints.advance(reference, text(to), { msg, status: text(to), time: this.time(), ...extra }, change, op)
    const final = codeOf((moved ?? (await this.deps.setpoints.find(reference)) ?? op).status)
    if (final === WRITTEN || final === FAILED) {
      this.timers.get(reference)?.()
      this.timers.delete(reference)
    }
    if (moved && to === WRITTEN) this.counters.written++
    if (moved && to === FAILED) this.counters.failed++
    return moved
  }

  private serial<T>(reference: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.chains.get(reference) ?? Promise.resolve()).then(fn, fn)
    const tail = run.catch(() => {})
    this.chains.set(reference, tail)
    tail.then(() => { if (this.chains.get(reference) === tail) this.chains.delete(reference) })
    return run
  }

  private ignored(c: AnswerSource, why: string): void {
    this.counters.answers_ignored++
    this.deps.log?.warn({ projectId: c.projectId, username: c.username }, `setpoints: answer ignored: ${why}`)
  }
}
