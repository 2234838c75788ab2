// The composition root's list (issue 30 item 5): the process is a list of parts, each in the
// one module shape (engine/running.ts), each run by the roles named beside it. startParts()
// starts the parts this process runs, in list order, and the stop it returns stops them in
// the reverse order. So the order of the list is the whole shutdown order, and what starts
// later (what accepts work) stops earlier.

import type { Running } from '../engine/running.ts'
import type { Role } from './config.ts'

export interface Part<C> {
  /** What it is, for the logs of start and shutdown. */
  name: string
  /** The roles that run it: a process runs it when it has one of them (the embedded default has all). */
  roles: readonly Role[]
  /** A further condition (a setting that enables it, a part that must be there). */
  when?: (c: C) => boolean
  /** Starts it; what it gives other parts it puts on `c`. Nothing to stop: resolve with nothing. */
  start(c: C): Promise<Running | void>
}

export interface PartsLog { debug(msg: string): void; error(obj: object, msg: string): void }

/** Whether a process with `roles` runs the part; `when` is asked at its turn, after the parts before it started. */
export function runs<C>(part: Part<C>, roles: ReadonlySet<Role>, c: C): boolean {
  return part.roles.some((r) => roles.has(r)) && (part.when?.(c) ?? true)
}

/**
 * Starts the parts in order. If one fails, those already started are stopped (in reverse)
 * and the failure is thrown. The returned stop() stops every started part in reverse order;
 * a part that fails to stop does not keep the later ones from stopping (its error is thrown
 * at the end), so the stores still close.
 */
export async function startParts<C>(parts: readonly Part<C>[], roles: ReadonlySet<Role>, c: C, log: PartsLog): Promise<Running & { names: string[] }> {
  const started: { name: string; running: Running | void }[] = []
  const stopAll = async () => {
    let first: unknown
    for (const { name, running } of [...started].reverse()) {
      log.debug(`shutdown: ${name}`)
      try {
        await running?.stop()
      } catch (err) {
        log.error({ err }, `shutdown: ${name} failed`)
        first ??= err
      }
    }
    if (first !== undefined) throw first
  }
  // Once: a second call (a signal during a test's teardown) waits for the same shutdown.
  let stopping: Promise<void> | undefined
  const stop = () => (stopping ??= stopAll())
  for (const part of parts) {
    if (!runs(part, roles, c)) continue
    log.debug(`start: ${part.name}`)
    try {
      started.push({ name: part.name, running: await part.start(c) })
    } catch (err) {
      await stop().catch(() => {})
      throw err
    }
  }
  return { names: started.map((s) => s.name), stop }
}
