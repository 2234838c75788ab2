// tap coverage map (package.json "tap"): the code whose coverage has a floor (issue 16 item 8),
// measured over the whole suite: grants and their checks, the MQTT broker, and the
// storage-first restart of running virtual datapoints (the runtime and, once lifted out of
// engine/vdp/, the shared stream operators). Every test file may cover them.
export const FLOORED = [
  'api/permissions.ts',
  'ingest/mqtt/**/*.ts',
  'engine/vdp/runtime.ts',
  'engine/stream/**/*.ts',
]

export default function coverageMap() {
  return FLOORED
}
