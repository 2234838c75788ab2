// The clock and schedules (DESIGN.md, core/): time source and timers (clock.ts), the virtual
// clock of tests (virtual-clock.ts), local time in a zone (zone.ts), calendar rules
// (calendar.ts) and cron rules (cron.ts).
export * from './clock.ts'
export { VirtualClock } from './virtual-clock.ts'
export * from './zone.ts'
export * from './calendar.ts'
export * from './cron.ts'
