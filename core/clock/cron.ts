// Cron rules in an IANA zone (five fields, cron-parser): the next instant after a time. DST is
// cron-parser's rule: a time missing on the spring day is skipped by minute fields, an hour
// field naming the repeated hour runs once. Schedules made of switching times use
// calendar.ts, whose rule for those days is the one issue 31 asks for.
import { CronExpressionParser } from 'cron-parser'
import { MICROS_PER_MS } from './clock.ts'

/** The first instant (µs, whole seconds) strictly after `afterUs` the expression names in `zone`. */
export function nextCron(expression: string, afterUs: number, zone = 'UTC'): number {
  const it = CronExpressionParser.parse(expression, { currentDate: new Date(Math.floor(afterUs / MICROS_PER_MS)), tz: zone })
  return it.next().getTime() * MICROS_PER_MS
}
