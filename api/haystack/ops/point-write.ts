// pointWrite (project-haystack.org/doc/Ops#pointWrite) mapped onto Lintel's setpoints, so a
// Haystack write reaches the edge agent through the same safeguards as POST
// /v2/datapoint/setpoint (api/setpoint-safeguards.ts: enabled project, maximum priority,
// TagAuth write, writable, bounds) and the same service (engine/setpoints: NEWSPT to the edge,
// its answer in the operation's log).
//   id only                         the 17 rows of the priority array (his/priority-array.ts)
//   id, level 1-16, val, who        a setpoint at that priority, acknowledged by the edge; no
//                                   val (or null) releases the level; the answer is the array
//                                   as known right after the request (the level shows status
//                                   `requested` until the edge answers)
//   duration (level 8 only)         a Num with a time unit: the level is released when it ends
//                                   (a timer of this API process: a restart forgets it)
// Level 17 (the device's default) is not writable through Lintel. `who` is kept with the
// caller's login in the operation's requested_by ("ann@example.com (who: Ann)").
import type { Catalog } from '../../../catalog/index.ts'
import type { Datapoint } from '../../../catalog/types.ts'
import { systemClock, type Cancel, type Clock } from '../../../core/clock/clock.ts'
import { LintelError } from '../../../core/errors.ts'
import type { SetpointService } from '../../../engine/setpoints/service.ts'
import { Grid, Num, type Dict, type HVal } from '../../../protocol/haystack/values.ts'
import { checkSetpointWrite } from '../../setpoint-safeguards.ts'
import { priorityArray } from '../his/priority-array.ts'
import { durationUs, resolvePoint, TIME_UNITS, unitOf, zincValueText } from '../his/points.ts'
import { HaystackOpError, type HaystackContext, type HaystackOp } from '../op.ts'

/** Longest duration accepted: a week (the timer lives in this process). */
const MAX_DURATION_US = 604_800e6

/** Pending releases of timed level-8 writes, per setpoint service: `project:datapoint` → cancel. */
const releases = new WeakMap<SetpointService, Map<string, Cancel>>()

async function arrayGrid(catalog: Catalog, dp: Datapoint): Promise<Grid> {
  const unit = unitOf(dp)
  const rows: Dict[] = priorityArray(await catalog.setpoints.listByDatapoint(dp.project_id, dp.dataPointID, 1000)).map((r) => ({
    level: new Num(r.level), levelDis: r.levelDis, val: r.val === null ? null : new Num(r.val, unit), who: r.who, status: r.status,
  }))
  return new Grid({}, ['level', 'levelDis', 'val', 'who', 'status'].map((name) => ({ name, meta: {} })), rows)
}

function level(v: HVal | undefined): number {
  const n = v instanceof Num ? v.val : undefined
  if (n === 17) throw new HaystackOpError('pointWrite: level 17 (the default of the device) is not writable through Lintel; write a level from 1 to 16')
  if (n === undefined || !Number.isInteger(n) || n < 1 || n > 16) throw new HaystackOpError(`pointWrite: level must be a Number from 1 to 16, got ${v === undefined ? 'nothing' : zincValueText(v)}`)
  return n
}

function value(v: HVal | undefined, unit: string | undefined): number | null {
  if (v === undefined || v === null) return null
  if (v === true || v === false) return v ? 1 : 0
  if (v instanceof Num && Number.isFinite(v.val)) {
    if (v.unit !== undefined && unit !== undefined && v.unit !== unit) throw new HaystackOpError(`pointWrite: val is in ${v.unit}, the point is in ${unit} (no conversion on write)`)
    return v.val
  }
  throw new HaystackOpError(`pointWrite: val must be a Number, a Bool or null, got ${zincValueText(v)}`)
}

function duration(v: HVal | undefined, lvl: number): number | undefined {
  if (v === undefined || v === null) return undefined
  if (lvl !== 8) throw new HaystackOpError('pointWrite: a duration applies to level 8 (manual) only')
  const us = durationUs(v)
  if (us === undefined || !(us > 0)) throw new HaystackOpError(`pointWrite: duration must be a positive Number with a time unit (${TIME_UNITS}), got ${zincValueText(v)}`)
  if (us > MAX_DURATION_US) throw new HaystackOpError('pointWrite: a duration is at most a week (7day)')
  return Math.round(us)
}

export const pointWrite: HaystackOp = {
  name: 'pointWrite', endpoint: 238, readOnly: false, summary: 'Read or write the priority array of a writable point',
  async handler(ctx, request) {
    const row = request.rows[0] ?? {}
    const dp = await resolvePoint(ctx, row.id, 'pointWrite')
    const { catalog } = ctx.route
    if (row.level === undefined || row.level === null) return arrayGrid(catalog, dp)
    const lvl = level(row.level)
    const val = value(row.val, unitOf(dp))
    const forUs = duration(row.duration, lvl)
    const who = typeof row.who === 'string' && row.who.trim() !== '' ? row.who.trim().slice(0, 200) : undefined
    try {
      await checkSetpointWrite(catalog, ctx.project.id, dp.dataPointID, val, lvl, async () => {
        if (!ctx.canAccess(dp, 'write')) throw new HaystackOpError(`pointWrite: no write access to the point @${dp.hash_id}`)
      })
    } catch (err) {
      // The safeguards' refusals are the op's answer: an error grid with their text.
      if (err instanceof LintelError) throw new HaystackOpError(`pointWrite: ${err.message}`)
      throw err
    }
    const service = ctx.services.setpoints
    if (!service) throw new HaystackOpError('pointWrite: setpoint writing is not available in this process: it needs the MQTT broker (LINTEL_ROLES with api and broker)', 503)
    const by = `${ctx.caller.user.email}${who ? ` (who: ${who})` : ''}`
    const op = await write(service, ctx, dp, lvl, val, by)
    if (op.status === 'failed') throw new HaystackOpError(`pointWrite: the write failed: ${op.log[op.log.length - 1]?.msg ?? 'no reason logged'}`)
    if (lvl === 8) timed(service, ctx.services.clock ?? systemClock, ctx, dp, forUs, by)
    return arrayGrid(catalog, dp)
  },
}

function write(service: SetpointService, ctx: HaystackContext, dp: Datapoint, lvl: number, val: number | null, by: string) {
  return service.request({ projectId: ctx.project.id, dataPointID: dp.dataPointID, value: val, priority: lvl, acked: true, dryrun: false, keepOutOfService: false, requestedBy: by })
}

/** A level-8 write replaces the pending release of the one before; with a duration it arms its own. */
function timed(service: SetpointService, clock: Clock, ctx: HaystackContext, dp: Datapoint, forUs: number | undefined, by: string): void {
  let pending = releases.get(service)
  if (!pending) releases.set(service, pending = new Map())
  const key = `${ctx.project.id}:${dp.dataPointID}`
  pending.get(key)?.()
  pending.delete(key)
  if (forUs === undefined) return
  const log = ctx.req.log
  const cancel = clock.after(() => {
    pending!.delete(key)
    write(service, ctx, dp, 8, null, `${by}, duration ended`).catch((err) => log.warn({ err, dataPointID: dp.dataPointID }, 'haystack: release after duration not sent'))
  }, forUs)
  pending.set(key, cancel)
}
