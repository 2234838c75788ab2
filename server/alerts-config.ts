// Configuration of the alert bounds (issue 29), read by server/config.ts:
//   LINTEL_ALERT_OUTBOX_PER_COMPANY  undelivered notifications kept per company (default 10,000;
//                                    beyond, that company's oldest are dropped, counted and logged)
//   LINTEL_ALERTS_PER_DATAPOINT      alerts one datapoint may have (default 100; 413 beyond)
//   LINTEL_ALERT_NOTIFY_INTERVAL_S   at most one notification per alert per this many seconds
//                                    (default 60; 0: every raise and reset), the events in
//                                    between coalesced into the next (engine/alerts/debounce.ts)

type Int = (name: string, fallback: number, min: number, max: number) => number

export interface AlertLimits { outboxPerCompany: number; perDatapoint: number; notifyIntervalMs: number }

export function readAlertLimits(int: Int): AlertLimits {
  return {
    outboxPerCompany: int('LINTEL_ALERT_OUTBOX_PER_COMPANY', 10_000, 1, 100_000),
    perDatapoint: int('LINTEL_ALERTS_PER_DATAPOINT', 100, 1, 100_000),
    notifyIntervalMs: int('LINTEL_ALERT_NOTIFY_INTERVAL_S', 60, 0, 86_400) * 1000,
  }
}
