// The worker role's control (issue 17 item 2, 3): keeps the runtimes (virtual datapoints,
// alerts) matched to two things that change under them:
//   - the worker's share of projects (the log partitions it owns): when it changes, runtimes
//     of projects it lost stop at once, and those of projects it gained start from the store;
//   - the run state in the catalog (vdp run/stop, alert enable/disable), changed by an API
//     in another process: the worker hears of it from one injected notification source.
// Reconciles are serialized and coalesced: a change that arrives while one runs causes one
// more run afterwards, never two at once.

/**
 * A notification source of run-state changes: calls the listener after a change (it may
 * call it more often; the worker then reconciles once more for nothing). Returns an
 * unsubscribe function. The composition root injects the catalog's change notification
 * (PostgreSQL LISTEN/NOTIFY), or pollingChanges() where the catalog has none.
 */
export type RunStateChanges = (listener: () => void) => () => void

/** A catalog without notifications: "something may have changed" every `ms`. */
export function pollingChanges(ms: number): RunStateChanges {
  return (listener) => {
    const timer = setInterval(listener, ms)
    timer.unref()
    return () => clearInterval(timer)
  }
}

export interface WorkerRuntime {
  /** Stops what belongs to projects this worker no longer owns (a partition moved away). */
  stopUnowned(): void | Promise<void>
  /** Starts and stops to match the catalog and the projects owned now. */
  reconcile(): Promise<void>
}

export interface WorkerControlOptions {
  runtimes: WorkerRuntime[]
  /** Run-state notifications (absent: the API is in this process and drives the runtimes). */
  changes?: RunStateChanges
  onError: (err: Error) => void
}

export class WorkerControl {
  private running: Promise<void> | undefined
  private again = false
  private closed = false
  private readonly unsubscribe: (() => void) | undefined

  constructor(private readonly o: WorkerControlOptions) {
    this.unsubscribe = o.changes?.(() => this.reconcile())
  }

  /** The share of projects changed: stop what was lost now, then start what was gained. */
  shareChanged(): void {
    for (const r of this.o.runtimes) {
      try {
        Promise.resolve(r.stopUnowned()).catch((err) => this.o.onError(err))
      } catch (err) {
        this.o.onError(err as Error)
      }
    }
    this.reconcile()
  }

  /** Runs a reconcile of every runtime, or one more after the one under way. */
  reconcile(): void {
    if (this.closed) return
    if (this.running) { this.again = true; return }
    this.running = (async () => {
      do {
        this.again = false
        for (const r of this.o.runtimes) {
          try { await r.reconcile() } catch (err) { this.o.onError(err as Error) }
        }
      } while (this.again && !this.closed)
    })().finally(() => { this.running = undefined })
  }

  /** Resolves once no reconcile runs (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running) await this.running
  }

  async close(): Promise<void> {
    this.closed = true
    this.unsubscribe?.()
    await this.settled()
  }
}
