// tap coverage map (package.json "tap"): the code whose coverage has a floor (issue 16 item 8),
// measured over the whole suite: grants and their checks, the MQTT broker, the
// storage-first restart of running virtual datapoints (the runtime and, once lifted out of
// engine/vdp/, the shared stream operators), and the alert and setpoint runtimes (issue 30
// item 8: their folders hold the runtime, its operators, configuration and lifecycle). Every test file may cover them, except those
// that start the platform (or a script that loads its modules, like scripts/openapi.ts) as
// child processes: a child loads the sources through tsx again,
// its coverage maps onto other lines, and merged with the rest it marks comments and covered
// code as missed. Those files (and, through the environment, their children) record none.
export const FLOORED = [
  'api/permissions.ts',
  'ingest/mqtt/**/*.ts',
  'engine/vdp/runtime.ts',
  'engine/stream/**/*.ts',
  'engine/alerts/**/*.ts',
  'engine/setpoints/**/*.ts',
]

export const SPAWNS_PLATFORM = new Set([
  'test/api/openapi-file.test.ts',
  'test/server/start.test.ts',
  'test/catalog/migrations.test.ts',
  'test/console/first-visit.test.ts',
  'test/e2e/crash-restart.test.ts',
  'test/e2e/scaled.test.ts',
  'test/engine/analytics/library.test.ts',
  'test/engine/store-durability.test.ts',
  'test/engine/vdp-restart.test.ts',
  'test/readme/readme.test.ts',
])

// test/with-postgres/ runs files again on a PostgreSQL catalog (test/helpers/on-postgres.ts):
// the floors are measured on their SQLite run, as when they were a separate pass without coverage.
export default function coverageMap(testFile) {
  return SPAWNS_PLATFORM.has(testFile) || testFile.startsWith('test/with-postgres/') ? null : FLOORED
}
