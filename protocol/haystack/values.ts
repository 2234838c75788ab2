// The Project Haystack 4 value model (project-haystack.org/doc/docHaystack/Kinds), shared by
// the Zinc and JSON (Hayson) codecs and the API's ops. Scalars that JavaScript already has
// stay native: Str is a string, Bool a boolean, Null is null, List an array, Dict a plain
// object. Every other kind is a small frozen class, told apart with instanceof.
//
// DateTime keeps time as the platform does (integer µs since the epoch, DESIGN.md) with the
// IANA zone name ("Europe/Berlin"); the codecs write Haystack's short zone name ("Berlin")
// and the offset of that instant, and read both back (haystackTz / ianaTz below).
import { IANAZone } from 'luxon'

export type Kind = HVal
export type HVal =
  | null | boolean | string
  | Marker | NA | Remove | Num | Uri | Ref | Sym | HDate | HTime | DateTime | Coord | XStr
  | HVal[] | Dict | Grid

/** A Dict: tag name → value (a plain object; never one of the classes here). */
export interface Dict { [name: string]: HVal }

export class Marker { static readonly value = Object.freeze(new Marker()); private constructor () {} }
export class NA { static readonly value = Object.freeze(new NA()); private constructor () {} }
export class Remove { static readonly value = Object.freeze(new Remove()); private constructor () {} }
export const MARKER = Marker.value
export const NA_VALUE = NA.value
export const REMOVE = Remove.value

/** Number with an optional unit; `val` may be Infinity, -Infinity or NaN (Zinc INF, -INF, NaN). */
export class Num { constructor (readonly val: number, readonly unit?: string) {} }
export class Uri { constructor (readonly val: string) {} }
/** Reference: `id` without the `@`, `dis` its display text. */
export class Ref { constructor (readonly id: string, readonly dis?: string) {} }
/** Symbol (`^hot-water`): a name of a def. */
export class Sym { constructor (readonly val: string) {} }
/** Date as `YYYY-MM-DD`. */
export class HDate { constructor (readonly val: string) {} }
/** Time as `hh:mm:ss[.fff]`. */
export class HTime { constructor (readonly val: string) {} }
/** Instant (µs since the epoch) in an IANA zone. */
export class DateTime { constructor (readonly us: number, readonly tz: string = 'UTC') {} }
export class Coord { constructor (readonly lat: number, readonly lng: number) {} }
export class XStr { constructor (readonly type: string, readonly val: string) {} }

export interface Col { name: string; meta: Dict }
export class Grid {
  constructor (readonly meta: Dict, readonly cols: Col[], readonly rows: Dict[]) {}
  /** A grid whose columns are the union of the rows' tags, in order of first use. */
  static ofRows(rows: Dict[], meta: Dict = {}): Grid {
    return new Grid(meta, colsOf(rows), rows)
  }
}

/** Columns of rows: the union of their tag names, in order of first use. */
export function colsOf(rows: Iterable<Dict>): Col[] {
  const seen = new Set<string>()
  for (const r of rows) for (const k of Object.keys(r)) seen.add(k)
  return [...seen].map((name) => ({ name, meta: {} }))
}

export function isDict(v: unknown): v is Dict {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const p = Object.getPrototypeOf(v)
  return p === Object.prototype || p === null
}

/** A tag name: a lowercase ASCII letter, then ASCII letters, digits and `_` (Haystack "names"). */
export const isTagName = (s: string): boolean => /^[a-z][a-zA-Z0-9_]*$/.test(s)

// --- time zones: Haystack names are the last part of the IANA name ("New_York"), UTC is "UTC".

let byShortName: Map<string, string> | undefined

/** Haystack's zone name of an IANA zone. */
export function haystackTz(iana: string): string {
  if (iana === 'UTC' || iana === 'Etc/UTC' || iana === 'Etc/GMT' || iana === 'GMT') return 'UTC'
  const slash = iana.lastIndexOf('/')
  return slash < 0 ? iana : iana.slice(slash + 1)
}

/** The IANA zone of a Haystack zone name, or undefined when there is none. */
export function ianaTz(name: string): string | undefined {
  if (name === 'UTC' || name === 'Rel') return 'UTC'
  if (!byShortName) {
    byShortName = new Map()
    for (const z of Intl.supportedValuesOf('timeZone')) byShortName.set(haystackTz(z), z)
    for (const n of ['GMT+1', 'GMT+2', 'GMT+3', 'GMT+4', 'GMT+5', 'GMT+6', 'GMT+7', 'GMT+8', 'GMT+9', 'GMT+10', 'GMT+11', 'GMT+12',
      'GMT-1', 'GMT-2', 'GMT-3', 'GMT-4', 'GMT-5', 'GMT-6', 'GMT-7', 'GMT-8', 'GMT-9', 'GMT-10', 'GMT-11', 'GMT-12', 'GMT-13', 'GMT-14']) byShortName.set(n, `Etc/${n}`)
  }
  if (byShortName.has(name)) return byShortName.get(name)
  return name.includes('/') && IANAZone.isValidZone(name) ? name : undefined
}

const zones = new Map<string, IANAZone>()
/** Per zone, per UTC day: the offset when it is the same at both ends of the day, else null (a change day). */
const dayOffsets = new Map<string, Map<number, number | null>>()
const DAY_MS = 86_400_000
/**
 * Offset of the zone at the instant, minutes east of UTC. luxon's offset costs tens of µs (Intl),
 * which a 525,600-row hisRead pays per row: the offset is asked twice per UTC day and kept, and
 * only on the days of a change is it asked per instant.
 */
export function offsetMinutes(iana: string, us: number): number {
  if (iana === 'UTC') return 0
  let z = zones.get(iana)
  if (!z) zones.set(iana, z = IANAZone.create(iana))
  const ms = Math.floor(us / 1000)
  const day = Math.floor(ms / DAY_MS)
  let days = dayOffsets.get(iana)
  if (!days) dayOffsets.set(iana, days = new Map())
  let o = days.get(day)
  if (o === undefined) {
    const a = z.offset(day * DAY_MS)
    o = a === z.offset((day + 1) * DAY_MS - 1) ? a : null
    if (days.size >= 4096) days.clear() // bounded: a few years of days per zone
    days.set(day, o)
  }
  return o ?? z.offset(ms)
}

/** `2024-03-31T02:00:00+02:00` (fractions of a second only when present): the ISO text of a DateTime without its zone name. */
export function isoOf(dt: DateTime): string {
  const off = offsetMinutes(dt.tz, dt.us)
  const localMs = Math.floor(dt.us / 1000) + off * 60_000
  const micros = ((dt.us % 1_000_000) + 1_000_000) % 1_000_000
  const base = new Date(localMs).toISOString().slice(0, 19)
  const frac = micros === 0 ? '' : '.' + String(micros).padStart(6, '0').replace(/0+$/, '')
  if (off === 0) return `${base}${frac}Z`
  const a = Math.abs(off)
  return `${base}${frac}${off < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`
}

/** µs of an ISO date-time with an offset (`Z` or ±hh:mm), or undefined when it is not one. */
export function parseIso(s: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})$/.exec(s)
  if (!m) return undefined
  const [, y, mo, d, h, mi, sec = '0', frac = '', off] = m
  const ms = Date.UTC(+y, +mo - 1, +d, +h, +mi, +sec)
  if (Number.isNaN(ms) || +mo > 12 || +d > 31 || +h > 23 || +mi > 59 || +sec > 59) return undefined
  const offMin = off === 'Z' ? 0 : (off[0] === '-' ? -1 : 1) * (+off.slice(1, 3) * 60 + +off.slice(4, 6))
  return (ms - offMin * 60_000) * 1000 + Number(frac.slice(0, 6).padEnd(6, '0'))
}

/** Checks a `YYYY-MM-DD` text names a real day. */
export function isDateText(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s)
  if (!m) return false
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]))
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3]
}

export const isTimeText = (s: string): boolean => /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?$/.test(s)

/**
 * The streaming form of a grid: header first, rows as they come (a long hisRead never builds one
 * string). An item of `rows` may be a batch of rows: hisRead yields each chunk of the store as
 * one, so the writer takes one asynchronous step per chunk, not per row.
 */
export interface GridStream { meta: Dict; cols: Col[]; rows: AsyncIterable<Dict | readonly Dict[]> | Iterable<Dict> }

/** A grid of one error (Haystack "Error Grid": meta `err`, `dis`, optional `errTrace`). */
export function errorGrid(dis: string, errTrace?: string): Grid {
  const meta: Dict = { err: MARKER, dis }
  if (errTrace !== undefined) meta.errTrace = errTrace
  return new Grid(meta, [{ name: 'empty', meta: {} }], [])
}
