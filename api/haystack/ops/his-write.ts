// hisWrite (project-haystack.org/doc/Ops#hisWrite): observations of one point (grid meta `id`,
// rows `ts`, `val`) stored through the same path as JSON ingest (ingest/observation-writer.ts:
// the caller's write access per datapoint, then the store's append, which resolves once the
// observations are durable), so the empty answer grid means "stored". Every row is checked
// before anything is stored: a bad row answers an error grid naming it and nothing is written.
//   ts   a DateTime (its offset fixes the instant; any zone name is accepted)
//   val  a Num (in the point's unit, or without one; another unit is refused: Lintel does not
//        convert on write), or a Bool (stored as 1 and 0)
// Unreadable points are unknown; readable ones without write access answer the ingest's refusal.
import type { Catalog } from '../../../catalog/index.ts'
import type { Ingest } from '../../../engine/ingest-port.ts'
import type { IdentifiedObservation } from '../../../ingest/json-observations.ts'
import { ObservationWriter } from '../../../ingest/observation-writer.ts'
import { DateTime, Grid, Num, type HVal } from '../../../protocol/haystack/values.ts'
import { HaystackOpError, type HaystackOp } from '../op.ts'
import { resolvePoint, unitOf, zincValueText } from '../his/points.ts'

/** One writer (with its resolver's memory) per catalog and ingest path. */
const writers = new WeakMap<Catalog, WeakMap<Ingest, ObservationWriter>>()
function writerOf(catalog: Catalog, ingest: Ingest): ObservationWriter {
  let byIngest = writers.get(catalog)
  if (!byIngest) writers.set(catalog, byIngest = new WeakMap())
  let w = byIngest.get(ingest)
  if (!w) byIngest.set(ingest, w = new ObservationWriter(catalog, ingest))
  return w
}

function valueOf(v: HVal | undefined, unit: string | undefined, row: number): number {
  if (v === true || v === false) return v ? 1 : 0
  if (v instanceof Num) {
    if (!Number.isFinite(v.val)) throw new HaystackOpError(`hisWrite row ${row}: val ${zincValueText(v)} cannot be stored (only finite numbers)`)
    if (v.unit !== undefined && unit !== undefined && v.unit !== unit) throw new HaystackOpError(`hisWrite row ${row}: val is in ${v.unit}, the point is in ${unit} (no conversion on write)`)
    return v.val
  }
  throw new HaystackOpError(`hisWrite row ${row}: val must be a Number or a Bool, got ${v === undefined ? 'nothing' : zincValueText(v)}`)
}

export const hisWrite: HaystackOp = {
  name: 'hisWrite', endpoint: 237, readOnly: false, summary: 'Write time series data to a point',
  async handler(ctx, request) {
    const dp = await resolvePoint(ctx, request.meta.id, 'hisWrite')
    const unit = unitOf(dp)
    const rows: IdentifiedObservation[] = new Array(request.rows.length)
    request.rows.forEach((r, i) => {
      if (!(r.ts instanceof DateTime)) throw new HaystackOpError(`hisWrite row ${i}: ts must be a DateTime, got ${r.ts === undefined ? 'nothing' : zincValueText(r.ts)}`)
      rows[i] = { id: dp.dataPointID, time: r.ts.us, value: valueOf(r.val, unit, i) }
    })
    // Durable before the answer: the append resolves after the store's commit (ingest's rule).
    await writerOf(ctx.route.catalog, ctx.route.ingest).write(ctx.project.id, rows, (d) => ctx.canAccess(d, 'write'))
    return new Grid({}, [{ name: 'empty', meta: {} }], [])
  },
}
