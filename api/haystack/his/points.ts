// The points of lane 35-his's ops (hisRead, hisWrite, pointWrite, watches): a request's id
// resolved to the caller's datapoint, and the Haystack values of a datapoint's observations.
// A point's id is its datapoint's hash id as a Ref (DESIGN.md); a point the caller cannot read
// through the op's endpoint does not exist for it ("Unknown id", as an id nobody has).
import type { Datapoint } from '../../../catalog/types.ts'
import { DateTime, Num, Ref, type HVal } from '../../../protocol/haystack/values.ts'
import { zincValue } from '../../../protocol/haystack/zinc.ts'
import { HaystackOpError, type HaystackContext } from '../op.ts'

/** The id text of a request's `id` (a Ref, or in a GET query a Str with or without the `@`). */
export function refText(v: HVal | undefined): string | undefined {
  if (v instanceof Ref) return v.id
  if (typeof v === 'string' && /^@?[A-Za-z0-9_:\-.~]+$/.test(v)) return v.replace(/^@/, '')
  return undefined
}

/** The datapoint of `id` the caller reads through the op's endpoint; an error grid otherwise. */
export async function resolvePoint(ctx: HaystackContext, id: HVal | undefined, op: string): Promise<Datapoint> {
  const ref = refText(id)
  if (ref === undefined) throw new HaystackOpError(`${op}: the request needs the point's id, a Ref such as @a1B2c3`)
  const found = await findPoint(ctx, ref)
  if (found === undefined) throw new HaystackOpError(`Unknown id: @${ref}`)
  return found
}

/** The readable datapoint of a hash id, or undefined (unknown, unreadable, or a collision of hash prefixes). */
export async function findPoint(ctx: HaystackContext, ref: string): Promise<Datapoint | undefined> {
  const readable = (await ctx.route.catalog.datapoints.findByHash(ctx.project.id, ref)).filter((dp) => ctx.canAccess(dp, 'read'))
  if (readable.length > 1) throw new HaystackOpError(`The id @${ref} names ${readable.length} datapoints (their hash ids collide): ask the operator for a longer hash_id_length of the project`)
  return readable[0]
}

/** The point's unit (Lintel's `unit` tag), undefined without one. */
export const unitOf = (dp: Datapoint): string | undefined => (dp.tags.unit ? dp.tags.unit : undefined)

export const pointRef = (dp: Datapoint): Ref => new Ref(dp.hash_id, dp.tags.dis || dp.dataPointID)

/** A stored value as Haystack speaks it: a Num in the point's unit. */
export const numOf = (value: number, unit: string | undefined): Num => new Num(value, unit)

export const dateTimeOf = (us: number, zone: string): DateTime => new DateTime(us, zone)

const UNIT_US: Record<string, number> = { ms: 1e3, s: 1e6, sec: 1e6, min: 60e6, h: 3600e6, hr: 3600e6, day: 86_400e6, d: 86_400e6, wk: 604_800e6 }
export const TIME_UNITS = 'ms, s, min, h, day, wk'

/** µs of a Num with a time unit (Haystack durations: `1min`, `30s`), undefined when it is not one. */
export function durationUs(v: HVal | undefined): number | undefined {
  const per = v instanceof Num && v.unit !== undefined ? UNIT_US[v.unit] : undefined
  return per === undefined || !(v instanceof Num) || !Number.isFinite(v.val) ? undefined : v.val * per
}

/** A value as Zinc, cut to 60 characters (error texts quote what was sent). */
export function zincValueText(v: HVal): string {
  const text = zincValue(v)
  return text.length > 60 ? text.slice(0, 57) + '...' : text
}
