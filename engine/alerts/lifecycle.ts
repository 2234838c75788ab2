// The lifecycle of an alert (issue 13; spec 3 names enable, disable and delete, shapes "not
// shown"): the one table the route and the runtime ask (engine/lifecycle.ts). Pure data.
//
//   create ─> Enabled (200) ─disable─> Disabled (300) ─enable─> Enabled (200)
//   DELETE (from either) ─> Deleting (500), then the record is removed
//
// Whether an enabled alert is raised (and at which level) is its evaluation state, not its
// lifecycle: that lives in the runtime's checkpoint and in the events.
import { defineLifecycle } from '../lifecycle.ts'

export type AlertTrigger = 'enable' | 'disable' | 'delete'

export const ALERT_LIFECYCLE = defineLifecycle<AlertTrigger>({
  resource: 'Alert',
  states: { 200: 'Enabled', 300: 'Disabled', 500: 'Deleting' },
  initial: 200,
  running: [200],
  transitions: [
    { trigger: 'enable', from: [300], to: 200 },
    { trigger: 'disable', from: [200], to: 300 },
    { trigger: 'delete', from: [200, 300], to: 500 },
  ],
  refusals: [
    { trigger: 'enable', from: [200], reason: 'is already enabled' },
    { trigger: 'disable', from: [300], reason: 'is already disabled' },
    { trigger: 'enable', from: [500], reason: 'is being deleted' },
    { trigger: 'disable', from: [500], reason: 'is being deleted' },
  ],
})
