// Schedules of controls apps (issue 31; contract-31): the configuration and its validation
// (config.ts), the holiday calendar (holidays.ts) and the switching times in a zone across
// DST changes (switching.ts). Pure; used by the API (validation, resolved ranges) and the edge
// agent (running the schedule).
export * from './config.ts'
export * from './holidays.ts'
export * from './switching.ts'
