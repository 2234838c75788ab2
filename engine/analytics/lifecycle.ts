// The weekly run of an analysis instance (spec 3 "States": an enabled instance runs every week,
// Monday to Monday), one ledger row per (instance, week) in the catalog. Pure table (engine/
// lifecycle.ts). The result's own status (success, missing_pins, ...) is the runner's (run.ts).
import { defineLifecycle } from '../lifecycle.ts'

export type WeekRunTrigger = 'finish' | 'takeover'

export const WEEK_RUN = defineLifecycle<WeekRunTrigger>({
  resource: 'Weekly analysis run',
  states: { 102: 'Running', 200: 'Done' },
  initial: 102,
  running: [102],
  transitions: [
    // The result (whatever its status) is stored with the move, in one transaction.
    { trigger: 'finish', from: [102], to: 200 },
    // A claim older than the lease: its worker died; another worker runs the week instead.
    { trigger: 'takeover', from: [102], to: 102 },
  ],
  refusals: [{ trigger: 'takeover', from: [200], reason: 'is done: a week never runs twice' }],
})
