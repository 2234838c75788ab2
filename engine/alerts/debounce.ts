// Notification rate per alert (issue 29 item 2; LINTEL_ALERT_NOTIFY_INTERVAL_S): at most one
// notification per alert per interval. One request of 20,000 observations that cross a
// threshold back and forth records 19,999 raises and resets (every event stays in the
// alert's event list, as before); without a bound each was a webhook call.
//
// The first raise or reset after a quiet interval is notified at once and opens a window.
// Events inside the window are recorded without a notification ("held"); when the window
// ends, one notification of the newest held event goes out with `coalesced`: how many events
// it stands for (itself and those held before it), and a new window opens. Held events are
// in memory only: stopping an alert (or the process, gracefully) sends its held notification
// at once; a crash loses at most one window's coalesced notification, never an event.
// Time is the shared clock's (core/clock), so tests run it on a VirtualClock.
import type { AlertEvent } from '../../catalog/alerts.ts'
import { afterMs, nowMs, type Cancel, type Clock } from '../../core/clock/clock.ts'

/** What the end of a window sends: the newest held event and how many events it covers. */
export interface Coalesced { alertId: number; event: AlertEvent; channels: string[]; count: number }

interface Window {
  /** When the window ends, ms of the clock. */
  until: number
  held?: Omit<Coalesced, 'alertId'>
  timer?: Cancel
}

export class NotificationDebounce {
  private readonly windows = new Map<number, Window>()

  /** intervalMs 0: every event is notified (no debounce). */
  constructor (private readonly intervalMs: number, private readonly clock: Clock, private readonly send: (c: Coalesced) => void) {}

  /** Whether an event of the alert is notified now; false: it will be held (see hold()). */
  admit(alertId: number): boolean {
    if (this.intervalMs <= 0) return true
    const now = nowMs(this.clock)
    const w = this.windows.get(alertId)
    if (w && now < w.until) return false
    if (w?.held) return false // the window ended and its flush is due: this event joins it
    this.windows.set(alertId, { until: now + this.intervalMs })
    return true
  }

  /** An event refused by admit(), now stored: the window's notification will cover it. */
  hold(event: AlertEvent, channels: string[]): void {
    const w = this.windows.get(event.alert_id) ?? { until: nowMs(this.clock) }
    this.windows.set(event.alert_id, w)
    w.held = { event, channels, count: (w.held?.count ?? 0) + 1 }
    w.timer ??= afterMs(this.clock, () => this.flush(event.alert_id), Math.max(0, w.until - nowMs(this.clock)))
  }

  /** Sends the alert's held notification now (if any) and starts a new window. */
  flush(alertId: number): void {
    const w = this.windows.get(alertId)
    if (!w) return
    w.timer?.()
    w.timer = undefined
    const held = w.held
    if (!held) return
    w.held = undefined
    w.until = nowMs(this.clock) + this.intervalMs
    this.send({ alertId, ...held })
  }

  /** The alert stops: its held notification goes now, its window is forgotten. */
  forget(alertId: number): void {
    this.flush(alertId)
    this.windows.delete(alertId)
  }

  /** Sends every held notification now (the process stops). */
  flushAll(): void {
    for (const id of [...this.windows.keys()]) this.flush(id)
    this.windows.clear()
  }

  /** Events held now, over all alerts (metrics, tests). */
  heldCount(): number {
    let n = 0
    for (const w of this.windows.values()) n += w.held?.count ?? 0
    return n
  }
}
