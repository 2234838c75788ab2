// The app runner of the edge agent (issue 31 item 3): runs the controls apps the platform
// defines (APPDEF) with the agent's clock and writes through its driver, whether or not the
// broker or the platform is reachable. No MQTT here: what it reports (APPLOG, APPSTATE) goes
// into the durable outbox, which the link (link.ts) sends in order when it can.
//   run     the values in force now are written (the program wraps around the week), then each
//           switching time at its instant; writes at the app's priority, keep-out-of-service
//           false, null releases
//   stop    the reset values are written (the app lets go of its priority), state Stopped
//   delete  as stop when it was running, then the app is forgotten (disk included)
//   offline for longer than an app's alive_timeout_s: its reset values are written and it is
//           Stopped (suspended); on reconnection apps with auto_recovery run again
// Every write, reset, state change, conflict (write-watch.ts) and refusal is one APPLOG with
// the app's next seq (from 1, contiguous, across restarts). Apps live on disk (disk.ts) and
// the running ones start again when the agent does.
import type { Cancel, Clock } from '../../core/clock/clock.ts'
import { pinsOf, resetValues, type PinValues } from '../../core/schedule/config.ts'
import { Resolver } from '../../core/schedule/switching.ts'
import { appLog, appState, type AppDef, type AppLogKind, type AppState } from '../../protocol/controls-app-messages.ts'
import { DriverRefusal } from '../driver.ts'
import type { AppDisk, StoredApp } from './disk.ts'
import type { Outbox } from './outbox.ts'
import { MANUAL, type Conflict, type WriteWatch } from './write-watch.ts'

export interface AppRunnerOptions {
  driver: WriteWatch
  clock: Clock
  disk: AppDisk
  outbox: Outbox
  log?: (msg: string) => void
}

interface Live {
  stored: StoredApp
  resolver: Resolver
  /** The next switching time. */
  timer?: Cancel
  /** The alive time-out while the connection is lost. */
  alive?: Cancel
  /** The app's work in order (writes are async; one app never interleaves with itself). */
  chain: Promise<void>
}

const SECOND_US = 1_000_000
const source = (appId: string) => `app:${appId}`
const iso = (us: number) => new Date(Math.floor(us / 1000)).toISOString()

export class AppRunner {
  private readonly apps = new Map<string, Live>()
  /** Deleted apps whose last writes are still under way. */
  private readonly draining = new Set<Promise<void>>()
  private online = false
  private offlineSince: number
  private readonly log: (msg: string) => void
  private readonly off: () => void

  constructor (private readonly o: AppRunnerOptions) {
    this.log = o.log ?? (() => {})
    // Until the link connects, the agent counts as disconnected since its start.
    this.offlineSince = o.clock.now()
    this.off = o.driver.onConflict((c) => this.conflict(c))
  }

  /** Loads the apps from disk (seq counters from the outbox too) and starts the running ones. */
  load(): void {
    const { apps, broken } = this.o.disk.load()
    for (const b of broken) this.log(`edge apps: skipped an unreadable app file (${b})`)
    const lastSeq = new Map<string, number>()
    for (const m of this.o.outbox.takeHistory()) {
      if (m.type === 'APPLOG' && typeof m.app_id === 'string' && typeof m.seq === 'number') lastSeq.set(m.app_id, Math.max(lastSeq.get(m.app_id) ?? 0, m.seq))
    }
    for (const stored of apps) {
      stored.seq = Math.max(stored.seq, lastSeq.get(stored.def.app_id) ?? 0)
      const a = this.track(stored)
      if (stored.state === 'Running') this.start(a, 'reloaded after the agent\'s restart')
      else if (stored.suspended && this.online) this.recover(a)
    }
  }

  /** Applies a definition from the platform and answers its state (APPSTATE). */
  apply(def: AppDef): void {
    const a = this.apps.get(def.app_id)
    if (a && def.revision <= a.stored.def.revision) { this.answer(a); return } // resent or older
    if (def.desired === 'delete') { this.remove(def, a); return }
    if (!a) {
      const fresh = this.track({ def, state: 'Stopped', seq: 0 })
      if (def.desired === 'run') this.start(fresh, `revision ${def.revision} deployed`)
      else this.setState(fresh, 'Stopped', `revision ${def.revision} deployed stopped`)
      return
    }
    const wasRunning = a.stored.state === 'Running'
    const before = a.stored.def
    this.halt(a)
    a.stored.def = def
    a.resolver = new Resolver(def.configuration, def.holidays, def.zone)
    if (def.desired === 'run') {
      // Pins the new revision no longer writes are let go of (their old reset values).
      const kept = new Set(pinsOf(def.configuration))
      const dropped = Object.fromEntries(Object.entries(resetValues(before.configuration)).filter(([pin]) => !kept.has(pin)))
      if (wasRunning && Object.keys(dropped).length > 0) this.enqueue(a, () => this.write(a, dropped, 'reset', 'pin no longer in the app', before))
      this.start(a, `revision ${def.revision} deployed`)
    } else {
      if (wasRunning) this.enqueue(a, () => this.write(a, resetValues(before.configuration), 'reset', 'stopped by the platform', before))
      this.setState(a, 'Stopped', `revision ${def.revision}: stopped by the platform`)
    }
  }

  /** The broker connection is up: alive time-outs are off, suspended apps recover. */
  connected(): void {
    this.online = true
    for (const a of this.apps.values()) {
      a.alive?.(); a.alive = undefined
      if (a.stored.suspended) this.recover(a)
    }
  }

  /** The broker connection is lost: each running app gets its alive time-out from now. */
  disconnected(): void {
    if (!this.online) return
    this.online = false
    this.offlineSince = this.o.clock.now()
    for (const a of this.apps.values()) if (a.stored.state === 'Running') this.armAlive(a)
  }

  /** What APPSYNC reports: every app the edge holds, with its revision. */
  inventory(): { app_id: string; revision: number }[] {
    return [...this.apps.values()].map((a) => ({ app_id: a.stored.def.app_id, revision: a.stored.def.revision }))
  }

  /** The apps and their states (the test clock's channel and the bench read it). */
  status(): { online: boolean; apps: { app_id: string; revision: number; state: AppState; reason?: string }[] } {
    return { online: this.online, apps: [...this.apps.values()].map((a) => ({ app_id: a.stored.def.app_id, revision: a.stored.def.revision, state: a.stored.state, reason: a.stored.reason })) }
  }

  /** Resolves when every app's work queued so far is done. */
  async idle(): Promise<void> {
    for (;;) {
      const chains = [...this.apps.values()].map((a) => a.chain)
      await Promise.all([...chains, ...this.draining])
      const now = [...this.apps.values()].map((a) => a.chain)
      if (this.draining.size === 0 && now.length === chains.length && now.every((c, i) => c === chains[i])) return
    }
  }

  /** Saves every app (its seq counter), e.g. before the outbox is emptied. */
  saveAll(): void {
    for (const a of this.apps.values()) this.o.disk.save(a.stored)
  }

  /** Stops the timers (the apps stay on disk as they are: the next start resumes them). */
  async stop(): Promise<void> {
    this.off()
    for (const a of this.apps.values()) { a.timer?.(); a.alive?.() }
    await this.idle()
    this.saveAll()
  }

  private track(stored: StoredApp): Live {
    const a: Live = { stored, resolver: new Resolver(stored.def.configuration, stored.def.holidays, stored.def.zone), chain: Promise.resolve() }
    this.apps.set(stored.def.app_id, a)
    return a
  }

  private start(a: Live, why: string): void {
    const { def } = a.stored
    const missing = pinsOf(def.configuration).map((pin) => def.pins[pin]).filter((dp) => dp === undefined || !this.o.driver.has(dp))
    if (missing.length > 0) {
      this.setState(a, 'Failed', `not a point of this edge device: ${missing.join(', ')}`)
      return
    }
    this.setState(a, 'Running', why)
    const now = this.o.clock.now()
    const inForce = a.resolver.inForce(now)
    if (Object.keys(inForce).length > 0) this.enqueue(a, () => this.write(a, inForce, 'write', `in force at ${iso(now)} (${why})`))
    this.schedule(a, now)
    if (!this.online) this.armAlive(a)
  }

  private schedule(a: Live, afterUs: number): void {
    const s = a.resolver.next(afterUs)
    if (!s) return
    a.timer = this.o.clock.at(() => {
      a.timer = undefined
      if (a.stored.state !== 'Running') return
      this.enqueue(a, async () => {
        await this.write(a, s.values, 'write', `switching time ${s.local}${s.holiday ? ` (holiday: ${s.holiday})` : ''}`)
        // The next switching is computed after the writes of every app due now (the turn after
        // this timer phase): many apps switching in one minute write first. From the
        // switching's own instant: a late timer does not skip the next one.
        await new Promise<void>((resolve) => setImmediate(resolve))
        if (a.stored.state === 'Running' && a.timer === undefined) this.schedule(a, s.timeUs)
      })
    }, s.timeUs)
  }

  private armAlive(a: Live): void {
    a.alive?.()
    const timeoutUs = a.stored.def.configuration.alive_timeout_s * SECOND_US
    a.alive = this.o.clock.at(() => {
      a.alive = undefined
      if (this.online || a.stored.state !== 'Running') return
      this.halt(a)
      const why = `connection lost since ${iso(this.offlineSince)}, longer than the alive time-out of ${a.stored.def.configuration.alive_timeout_s} s`
      this.enqueue(a, () => this.write(a, resetValues(a.stored.def.configuration), 'reset', why))
      this.setState(a, 'Stopped', why, true)
    }, this.offlineSince + timeoutUs)
  }

  private recover(a: Live): void {
    if (a.stored.def.configuration.auto_recovery && a.stored.def.desired === 'run') this.start(a, 'auto-recovery after reconnection')
  }

  /** Cancels the app's timers. */
  private halt(a: Live): void {
    a.timer?.(); a.timer = undefined
    a.alive?.(); a.alive = undefined
  }

  private remove(def: AppDef, a: Live | undefined): void {
    if (a) {
      this.halt(a)
      if (a.stored.state === 'Running') this.enqueue(a, () => this.write(a, resetValues(a.stored.def.configuration), 'reset', 'deleted by the platform'))
      this.apps.delete(def.app_id)
      // Forgotten once its last writes are done; idle() waits for that too.
      const done = a.chain.then(() => {
        this.o.driver.forget(source(def.app_id))
        this.o.disk.remove(def.app_id)
      })
      this.draining.add(done)
      void done.finally(() => this.draining.delete(done))
    }
    this.o.outbox.append(appState({ app_id: def.app_id, revision: def.revision, state: 'Deleted' }))
  }

  private setState(a: Live, state: AppState, reason: string, suspended = false): void {
    a.stored.state = state
    a.stored.reason = reason
    if (suspended) a.stored.suspended = true
    else delete a.stored.suspended
    this.emitLog(a, 'state', { message: `${state}: ${reason} (revision ${a.stored.def.revision})` })
    this.o.disk.save(a.stored)
    this.answer(a)
  }

  private answer(a: Live): void {
    const { def, state, reason } = a.stored
    this.o.outbox.append(appState({ app_id: def.app_id, revision: def.revision, state, ...(reason ? { reason } : {}) }))
  }

  private enqueue(a: Live, work: () => Promise<void>): void {
    a.chain = a.chain.then(work).catch((err) => this.log(`edge apps: ${a.stored.def.app_id}: ${(err as Error).message}`))
  }

  /** Writes pin values through the driver, one APPLOG each (an error when refused). */
  private async write(a: Live, values: PinValues, kind: 'write' | 'reset', why: string, def: AppDef = a.stored.def): Promise<void> {
    const priority = def.configuration.priority
    for (const [pin, value] of Object.entries(values)) {
      const datapoint = def.pins[pin]
      try {
        await this.o.driver.writeAs(source(def.app_id), { point: datapoint, value, priority, dryrun: false, keepOutOfService: false })
        this.emitLog(a, kind, { datapoint, value, priority, message: `${pin} = ${value === null ? 'null (released)' : value}: ${why}` })
      } catch (err) {
        const reason = err instanceof DriverRefusal ? err.message : `driver error: ${(err as Error).message}`
        this.emitLog(a, 'error', { datapoint, value, priority, message: `${pin} not written: ${reason}` })
      }
    }
  }

  private conflict(c: Conflict): void {
    const name = (s: string) => (s === MANUAL ? 'a manual setpoint (NEWSPT)' : `app ${s.slice(4)}`)
    for (const [me, other] of [[c.holder, c.writer], [c.writer, c.holder]]) {
      const a = me.startsWith('app:') ? this.apps.get(me.slice(4)) : undefined
      if (a) this.emitLog(a, 'conflict', { datapoint: c.point, priority: c.priority, message: `${c.point} at priority ${c.priority} is also written by ${name(other)}` })
    }
  }

  private emitLog(a: Live, kind: AppLogKind, f: { datapoint?: string; value?: number | null; priority?: number; message: string }): void {
    a.stored.seq++
    this.o.outbox.append(appLog({ app_id: a.stored.def.app_id, seq: a.stored.seq, time: iso(this.o.clock.now()), kind, ...f }))
  }
}
