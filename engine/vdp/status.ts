// The one writer of a virtual datapoint's status: moves it by a trigger of the lifecycle table
// (lifecycle.ts) and records the change in the catalog's log. The route (requests) and the
// runtime (starts, failures) both go through it, so no other code writes a status code.
import type { VdpRecord, VirtualDatapoints } from '../../catalog/virtual-datapoints.ts'
import { VDP_LIFECYCLE, type VdpTrigger } from './lifecycle.ts'

export type VdpStore = Pick<VirtualDatapoints, 'byId' | 'setStatus'>

/** Throws TransitionRefusedError (409) unless `trigger` is allowed from the status of `v`. */
export function checkVdpMove(v: VdpRecord, trigger: VdpTrigger): void {
  VDP_LIFECYCLE.next(v.status_code, trigger, v.dataPointID)
}

/** Moves the virtual datapoint `id` from its stored status by `trigger`, logging `message`. */
export function moveVdp(vdps: VdpStore, id: number, trigger: VdpTrigger, message = ''): VdpRecord {
  const v = vdps.byId(id)
  return vdps.setStatus(id, VDP_LIFECYCLE.next(v.status_code, trigger, v.dataPointID), message)
}

/**
 * Takes the automatic transitions out of the status of `id` (Created → Ready to start) right
 * after the current request has been answered, so the reply still shows the state it created.
 * Does nothing if the status changed meanwhile or the record is gone.
 */
export function settleVdp(vdps: VdpStore, id: number): void {
  setImmediate(() => {
    try {
      for (let auto = VDP_LIFECYCLE.automatic(vdps.byId(id).status_code); auto; auto = VDP_LIFECYCLE.automatic(vdps.byId(id).status_code)) {
        moveVdp(vdps, id, auto.trigger)
      }
    } catch { /* deleted meanwhile */ }
  })
}
