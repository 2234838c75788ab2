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

export type AlertConditionTrigger = 'raise' | 'reset' | 'acknowledge' | 'clear'

/**
 * The condition of an enabled alert (issue 34 item 3): what people work with. The runtime
 * moves it (raise, reset); people acknowledge it (who, when, comment: a raised alert that is
 * acknowledged notifies no further raise until it resets) or clear it (a reset by hand: the
 * evaluation starts again from Normal, so a condition that still holds raises anew).
 *
 *   Normal (0) ─raise─> Raised (1) ─acknowledge─> Acknowledged (2)
 *   Raised / Acknowledged ─raise (another level)─> the same state
 *   Raised / Acknowledged ─reset | clear─> Normal
 */
export const ALERT_CONDITION = defineLifecycle<AlertConditionTrigger>({
  resource: 'Alert',
  states: { 0: 'Normal', 1: 'Raised', 2: 'Acknowledged' },
  initial: 0,
  running: [0, 1, 2],
  transitions: [
    { trigger: 'raise', from: [0, 1], to: 1 },
    { trigger: 'raise', from: [2], to: 2 },
    { trigger: 'acknowledge', from: [1], to: 2 },
    { trigger: 'reset', from: [1, 2], to: 0 },
    { trigger: 'clear', from: [1, 2], to: 0 },
  ],
  refusals: [
    { trigger: 'acknowledge', from: [0], reason: 'is not raised: there is nothing to acknowledge' },
    { trigger: 'acknowledge', from: [2], reason: 'is already acknowledged' },
    { trigger: 'clear', from: [0], reason: 'is not raised: there is nothing to clear' },
  ],
})

/** The condition's code from the raised level and whether the raise is acknowledged. */
export const conditionOf = (level: string | null, acknowledged: boolean): number => (level === null ? 0 : acknowledged ? 2 : 1)
