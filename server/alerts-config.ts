// Configuration of the alert bounds (issue 29), read by server/config.ts:
//   LINTEL_ALERT_OUTBOX_PER_COMPANY  undelivered notifications kept per company (default 10,000;
//                                    beyond, that company's oldest are dropped, counted and logged)
import type { Config } from './config.ts'

type Int = (name: string, fallback: number, min: number, max: number) => number

export function readAlertLimits(int: Int): Config['alertLimits'] {
  return {
    outboxPerCompany: int('LINTEL_ALERT_OUTBOX_PER_COMPANY', 10_000, 1, 100_000),
  }
}
