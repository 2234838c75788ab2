// watchSub, watchPoll, watchUnsub (project-haystack.org/doc/Ops#watchSub): subscriptions to
// points' current values, fed by the live stream (api/haystack/watches.ts holds them).
//   watchSub    meta watchDis (a new watch) or watchId (add to it), lease (a Num with a time
//               unit, clamped, default 1min); rows: ids. Answers meta watchId and the granted
//               lease, and one row per requested id in its order: the point with curVal (its
//               latest stored observation) and curStatus; an id the caller cannot read is a row
//               of nulls, as an unknown one.
//   watchPoll   meta watchId, optional refresh marker: the points changed since the last poll
//               (all with refresh); renews the lease. A point the caller can no longer read
//               (its TagAuths changed) leaves the watch.
//   watchUnsub  meta watchId and rows of ids to remove, or the close marker to close it.
// A watch is its user's: another login gets "Unknown watch". Watches live in the API process
// that opened them (scaled mode: a client polls the process it subscribed at).
import type { Datapoint } from '../../../catalog/types.ts'
import { Grid, Marker, Num, type Dict, type HVal } from '../../../protocol/haystack/values.ts'
import { durationUs, findPoint, refText, TIME_UNITS, zincValueText } from '../his/points.ts'
import { loadModel, recordsGrid } from '../model.ts'
import { HaystackOpError, type HaystackContext, type HaystackOp } from '../op.ts'
import type { CurValue, Watch, WatchRegistry } from '../watches.ts'

function registryOf(ctx: HaystackContext): WatchRegistry {
  const r = ctx.services.watches
  if (!r) throw new HaystackOpError('Watches are not available in this process: it hears no live stream (scaled mode: LINTEL_REDIS_URL)', 503)
  return r
}

const owner = (ctx: HaystackContext) => String(ctx.caller.user.id)

function watchIdOf(meta: Dict, op: string): string {
  const id = meta.watchId
  if (typeof id !== 'string' || id === '') throw new HaystackOpError(`${op}: the grid meta needs watchId, the Str watchSub answered`)
  return id
}

function found(ctx: HaystackContext, reg: WatchRegistry, id: string): Watch {
  const w = reg.find(owner(ctx), ctx.project.id, id)
  if (!w) throw new HaystackOpError(`Unknown watch: ${id.slice(0, 60)}`)
  return w
}

/** The row of a watched point: its record (model.ts, as read answers it) with curVal and curStatus. */
function pointRow(record: Dict, cur: CurValue | undefined): Dict {
  const unit = typeof record.unit === 'string' ? record.unit : undefined
  return { ...record, curVal: cur ? new Num(cur.value, unit) : null, curStatus: cur ? 'ok' : 'unknown' }
}

async function latest(ctx: HaystackContext, series: number): Promise<CurValue | undefined> {
  return (await ctx.route.store.read(series, { from: 'last', limit: 1 }))[0]
}

/** Records as a grid (id and dis first); a grid without rows has the column `empty`. */
function withCols(rows: Dict[], meta: Dict): Grid {
  const g = recordsGrid(rows.filter((r) => Object.keys(r).length > 0).length > 0 ? rows : [])
  return new Grid(meta, g.cols.length > 0 ? g.cols : [{ name: 'empty', meta: {} }], rows)
}

export const watchSub: HaystackOp = {
  name: 'watchSub', endpoint: 239, readOnly: false, summary: 'Subscribe to points: open or extend a watch',
  async handler(ctx, request) {
    const reg = registryOf(ctx)
    const meta = request.meta
    let leaseUs: number | undefined
    if (meta.lease !== undefined && meta.lease !== null) {
      leaseUs = durationUs(meta.lease)
      if (leaseUs === undefined) throw new HaystackOpError(`watchSub: lease must be a Number with a time unit (${TIME_UNITS}), got ${zincValueText(meta.lease)}`)
    }
    const refs = request.rows.map((r) => refText(r.id))
    // Resolved before a new watch opens: a refused request leaves nothing behind.
    const points = await Promise.all(refs.map((ref) => (ref === undefined ? undefined : findPoint(ctx, ref))))
    let w: Watch
    if (meta.watchId !== undefined && meta.watchId !== null) {
      w = found(ctx, reg, watchIdOf(meta, 'watchSub'))
      reg.touch(w, leaseUs === undefined ? w.leaseUs : reg.lease(leaseUs))
    } else {
      const dis = typeof meta.watchDis === 'string' && meta.watchDis !== '' ? meta.watchDis.slice(0, 200) : 'watch'
      w = await reg.open(owner(ctx), ctx.project.id, dis, reg.lease(leaseUs))
    }
    const known = points.filter((dp): dp is Datapoint => dp !== undefined)
    try {
      // Watched first, then read: an observation stored meanwhile is heard or read, never lost.
      reg.add(w, known.map((dp) => ({ series: dp.id, ref: dp.hash_id })))
    } catch (err) {
      if (w.points.size === 0) reg.close(w)
      throw err
    }
    for (const dp of known) {
      const cur = await latest(ctx, dp.id)
      if (cur) reg.seed(w, dp.id, cur)
    }
    const model = await loadModel(ctx)
    const rows = points.map((dp) => {
      const record = dp && model.byId.get(dp.hash_id)
      return record ? pointRow(record, w.values.get(dp!.id)) : {}
    })
    return withCols(rows, { watchId: w.id, lease: new Num(w.leaseUs / 1e6, 's') })
  },
}

export const watchPoll: HaystackOp = {
  name: 'watchPoll', endpoint: 240, readOnly: false, summary: 'Poll a watch for changes',
  async handler(ctx, request) {
    const reg = registryOf(ctx)
    const w = found(ctx, reg, watchIdOf(request.meta, 'watchPoll'))
    reg.touch(w)
    const refresh = request.meta.refresh instanceof Marker || w.stale
    const polled = reg.poll(w, refresh)
    const model = polled.length > 0 ? await loadModel(ctx) : undefined
    const rows: Dict[] = []
    for (const { series, ref } of polled) {
      // A point the caller no longer reads (TagAuths changed, or deleted) leaves the watch.
      const record = model!.byId.get(ref)
      if (!record) { reg.remove(w, [series]); continue }
      if (w.stale) { const cur = await latest(ctx, series); if (cur) reg.seed(w, series, cur) }
      rows.push(pointRow(record, w.values.get(series)))
    }
    w.stale = false
    return withCols(rows, { watchId: w.id })
  },
}

export const watchUnsub: HaystackOp = {
  name: 'watchUnsub', endpoint: 241, readOnly: false, summary: 'Unsubscribe points from a watch, or close it',
  async handler(ctx, request) {
    const reg = registryOf(ctx)
    const w = found(ctx, reg, watchIdOf(request.meta, 'watchUnsub'))
    if (request.meta.close instanceof Marker) reg.close(w)
    else {
      const refs = new Set(request.rows.map((r) => refText(r.id as HVal)).filter((r): r is string => r !== undefined))
      reg.remove(w, [...w.points].filter(([, ref]) => refs.has(ref)).map(([series]) => series))
    }
    return new Grid({}, [{ name: 'empty', meta: {} }], [])
  },
}
