// The one writer of a virtual datapoint's status: moves it by a trigger of the lifecycle table
// (lifecycle.ts) and records the change in the catalog's log. The route (requests) and the
// runtime (starts, failures) both go through it, so no other code writes a status code.
// A move reads the stored status and writes the next one in one catalog transaction, so two
// requests (or a request and the runtime) never both move from the same status.
import type { CatalogPort } from '../../catalog/port.ts'
import type { VdpRecord } from '../../catalog/virtual-datapoints.ts'
import { VDP_LIFECYCLE, type VdpTrigger } from './lifecycle.ts'

export type VdpStore = Pick<CatalogPort, 'transaction'>

/** Throws TransitionRefusedError (409) unless `trigger` is allowed from the status of `v`. */
export function checkVdpMove(v: VdpRecord, trigger: VdpTrigger): void {
  VDP_LIFECYCLE.next(v.status_code, trigger, v.dataPointID)
}

/** Moves the virtual datapoint `id` from its stored status by `trigger`, logging `message`. */
export function moveVdp(catalog: VdpStore, id: number, trigger: VdpTrigger, message = ''): Promise<VdpRecord> {
  return catalog.transaction(async (tx) => {
    const v = await tx.virtualDatapoints.byId(id)
    return tx.virtualDatapoints.setStatus(id, VDP_LIFECYCLE.next(v.status_code, trigger, v.dataPointID), message)
  })
}

/**
 * Takes the automatic transitions out of the status of `id` (Created → Ready to start) right
 * after the current request has been answered, so the reply still shows the state it created.
 * Does nothing if the status changed meanwhile or the record is gone.
 */
export function settleVdp(catalog: VdpStore & Pick<CatalogPort, 'virtualDatapoints'>, id: number): void {
  const status = async () => (await catalog.virtualDatapoints.byId(id)).status_code
  setImmediate(async () => {
    try {
      for (let auto = VDP_LIFECYCLE.automatic(await status()); auto; auto = VDP_LIFECYCLE.automatic(await status())) {
        await moveVdp(catalog, id, auto.trigger)
      }
    } catch { /* deleted meanwhile */ }
  })
}
