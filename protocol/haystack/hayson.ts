// Hayson, Haystack 4's JSON format (project-haystack.org/doc/docHaystack/Json): writing values,
// grids and grids as a stream (the header object, then one row object at a time), and reading
// them from parsed JSON. Pure, no I/O.
import { Coord, DateTime, Grid, HDate, HTime, MARKER, NA_VALUE, Num, REMOVE, Ref, Sym, Uri, XStr, Marker, NA, Remove,
  isDict, isoOf, haystackTz, ianaTz, parseIso, isDateText, isTimeText, type Col, type Dict, type HVal } from './values.ts'

export const HAYSON_MIME = 'application/json'

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json }

/** One value as Hayson (a JSON value). */
export function toHayson(v: HVal): Json {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v
  if (v instanceof Marker) return { _kind: 'marker' }
  if (v instanceof NA) return { _kind: 'na' }
  if (v instanceof Remove) return { _kind: 'remove' }
  if (v instanceof Num) {
    if (!Number.isFinite(v.val)) return { _kind: 'number', val: Number.isNaN(v.val) ? 'NaN' : v.val > 0 ? 'INF' : '-INF' }
    return v.unit ? { _kind: 'number', val: v.val, unit: v.unit } : v.val
  }
  if (v instanceof Ref) return v.dis === undefined ? { _kind: 'ref', val: v.id } : { _kind: 'ref', val: v.id, dis: v.dis }
  if (v instanceof Uri) return { _kind: 'uri', val: v.val }
  if (v instanceof Sym) return { _kind: 'symbol', val: v.val }
  if (v instanceof HDate) return { _kind: 'date', val: v.val }
  if (v instanceof HTime) return { _kind: 'time', val: v.val }
  if (v instanceof DateTime) return { _kind: 'dateTime', val: isoOf(v), tz: haystackTz(v.tz) }
  if (v instanceof Coord) return { _kind: 'coord', lat: v.lat, lng: v.lng }
  if (v instanceof XStr) return { _kind: 'xstr', type: v.type, val: v.val }
  if (Array.isArray(v)) return v.map(toHayson)
  if (v instanceof Grid) return haysonGrid(v)
  if (isDict(v)) return haysonDict(v)
  throw new TypeError('not a Haystack value')
}

function haysonDict(d: Dict): { [k: string]: Json } {
  const out: { [k: string]: Json } = {}
  for (const [k, v] of Object.entries(d)) if (v !== undefined) out[k] = toHayson(v)
  return out
}

const colJson = (c: Col): Json => (Object.keys(c.meta).length === 0 ? { name: c.name } : { name: c.name, meta: haysonDict(c.meta) })

export function haysonGrid(g: Grid): { [k: string]: Json } {
  return { _kind: 'grid', meta: { ver: '3.0', ...haysonDict(g.meta) }, cols: g.cols.map(colJson), rows: g.rows.map(haysonDict) }
}

// Streaming: `{"_kind":"grid","meta":…,"cols":[…],"rows":[` + rows joined by `,` + `]}`.
export function haysonHeader(meta: Dict, cols: readonly Col[]): string {
  return `{"_kind":"grid","meta":${JSON.stringify({ ver: '3.0', ...haysonDict(meta) })},"cols":${JSON.stringify(cols.map(colJson))},"rows":[`
}
/** One row; `first` is false for every row after the first (they are joined by commas). */
export function haysonRow(row: Dict, first: boolean): string {
  return (first ? '' : ',') + JSON.stringify(haysonDict(row))
}
export const HAYSON_END = ']}'

// ---------------------------------------------------------------- reading

export class HaysonError extends Error {}

const fail = (what: string): never => { throw new HaysonError(`Invalid Haystack JSON: ${what}`) }

function num(x: Json): number {
  if (typeof x === 'number') return x
  if (x === 'INF') return Infinity
  if (x === '-INF') return -Infinity
  if (x === 'NaN') return NaN
  return fail(`a number was expected, got ${JSON.stringify(x)}`)
}

function text(o: { [k: string]: Json }, key: string, kind: string): string {
  const v = o[key]
  if (typeof v !== 'string') fail(`${kind} needs a string "${key}"`)
  return v as string
}

/** A Haystack value from parsed Hayson (depth-limited). */
export function fromHayson(x: Json, depth = 0): HVal {
  if (depth > 64) fail('values nested deeper than 64')
  if (x === null || typeof x === 'boolean' || typeof x === 'string') return x
  if (typeof x === 'number') return new Num(x)
  if (Array.isArray(x)) return x.map((e) => fromHayson(e, depth + 1))
  if (typeof x !== 'object') return fail('unknown value')
  const kind = x._kind
  if (kind === undefined || kind === 'dict') {
    const d: Dict = {}
    for (const [k, v] of Object.entries(x)) if (k !== '_kind') d[k] = fromHayson(v, depth + 1)
    return d
  }
  switch (kind) {
    case 'marker': return MARKER
    case 'na': return NA_VALUE
    case 'remove': return REMOVE
    case 'number': {
      const unit = x.unit
      if (unit !== undefined && unit !== null && typeof unit !== 'string') fail('a number\'s unit must be a string')
      return new Num(num(x.val), (unit as string | null) ?? undefined)
    }
    case 'ref': {
      const dis = x.dis
      return new Ref(text(x, 'val', 'ref'), typeof dis === 'string' ? dis : undefined)
    }
    case 'uri': return new Uri(text(x, 'val', 'uri'))
    case 'symbol': return new Sym(text(x, 'val', 'symbol'))
    case 'date': {
      const v = text(x, 'val', 'date')
      if (!isDateText(v)) fail(`invalid date ${JSON.stringify(v)}`)
      return new HDate(v)
    }
    case 'time': {
      const v = text(x, 'val', 'time')
      if (!isTimeText(v)) fail(`invalid time ${JSON.stringify(v)}`)
      return new HTime(v)
    }
    case 'dateTime': {
      const us = parseIso(text(x, 'val', 'dateTime'))
      if (us === undefined) fail(`invalid dateTime ${JSON.stringify(x.val)}`)
      const tzName = typeof x.tz === 'string' ? x.tz : 'UTC'
      const tz = ianaTz(tzName)
      if (tz === undefined) fail(`unknown time zone ${JSON.stringify(tzName)}`)
      return new DateTime(us as number, tz)
    }
    case 'coord': return new Coord(num(x.lat), num(x.lng))
    case 'xstr': return new XStr(text(x, 'type', 'xstr'), text(x, 'val', 'xstr'))
    case 'grid': return readHaysonGridObject(x, depth + 1)
    default: return fail(`unknown _kind ${JSON.stringify(kind)}`)
  }
}

function readHaysonGridObject(x: { [k: string]: Json }, depth: number): Grid {
  const meta = x.meta === undefined ? {} : fromHayson(x.meta, depth)
  if (!isDict(meta)) fail('a grid\'s meta must be an object')
  const { ver: _ver, ...gridMeta } = meta as Dict
  const rawCols = x.cols ?? []
  const rawRows = x.rows ?? []
  if (!Array.isArray(rawCols)) fail('a grid\'s cols must be an array')
  if (!Array.isArray(rawRows)) fail('a grid\'s rows must be an array')
  const cols: Col[] = (rawCols as Json[]).map((c) => {
    if (typeof c !== 'object' || c === null || Array.isArray(c) || typeof c.name !== 'string') return fail('a column needs a name')
    const cm = c.meta === undefined ? {} : fromHayson(c.meta, depth)
    if (!isDict(cm)) fail('a column\'s meta must be an object')
    return { name: c.name, meta: cm as Dict }
  })
  const rows = (rawRows as Json[]).map((r) => {
    const d = fromHayson(r, depth)
    if (!isDict(d)) fail('a row must be an object')
    return d as Dict
  })
  // Columns may be left out by a writer: the union of the rows' tags then.
  if (cols.length === 0 && rows.length > 0) return Grid.ofRows(rows, gridMeta)
  return new Grid(gridMeta, cols, rows)
}

/** A grid from parsed JSON (an object with `_kind: "grid"`, or `meta`/`cols`/`rows`). */
export function readHaysonGrid(x: unknown): Grid {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return fail('a grid must be a JSON object')
  return readHaysonGridObject(x as { [k: string]: Json }, 0)
}

export function haysonText(g: Grid): string {
  return JSON.stringify(haysonGrid(g))
}
