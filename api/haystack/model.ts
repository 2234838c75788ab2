// The Haystack records of a project as one caller sees them (docs/haystack.md, "The model"):
//   site   the project: `id @site:<project id>`, `site`, `dis` (its name), `tz`
//   equip  a mapped component: `id @equip:<component in project id>`, `equip`, `dis` (its
//          display name), `siteRef`, its tags
//   point  a datapoint the caller can read through the op's endpoint: `id @<hash id>`, `point`,
//          `his`, `cur`, `kind: "Number"` (Lintel stores numbers), `tz`, `dis`, `unit` (the `unit`
//          tag), `siteRef`, `equipRef` (the first mapped component with a pin on it, by id),
//          `writable` with `minVal`/`maxVal` where write bounds are set, `dataPointID`, its tags
// Lintel tags become Haystack tags: an empty value or `true` is a marker, anything else a Str;
// a key that is not a Haystack name (a lowercase letter, then letters, digits, `_`) is left
// out, and so is a key the model sets itself (`dis` and `unit` are read from the tags first).
// A datapoint the caller cannot read does not exist here (TagAuths of the op's endpoint).
import { Grid, MARKER, Num, Ref, haystackTz, isTagName, type Dict } from '../../protocol/haystack/values.ts'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { Datapoint } from '../../catalog/types.ts'
import type { HaystackContext } from './op.ts'

/** Datapoints read from the catalog at a time. */
const SLICE = 5000

/** Tags the model sets itself; a Lintel tag of the same name is not copied. */
const OWN = new Set(['id', 'site', 'equip', 'point', 'his', 'cur', 'kind', 'tz', 'dis', 'unit', 'siteRef', 'equipRef', 'writable', 'minVal', 'maxVal', 'dataPointID'])

export const siteId = (projectId: number): string => `site:${projectId}`
export const equipId = (componentId: number): string => `equip:${componentId}`

export interface HaystackModel {
  site: Dict
  equips: Dict[]
  points: Dict[]
  /** Every record by its id (the Ref's id, without `@`). */
  byId: Map<string, Dict>
  /** The points of each equip id, and (key '') those in no equip. */
  pointsOf: Map<string, Dict[]>
}

function copyTags(into: Dict, tags: Readonly<Record<string, string>>): void {
  for (const [k, v] of Object.entries(tags)) {
    if (OWN.has(k) || !isTagName(k)) continue
    into[k] = v === '' || v === 'true' ? MARKER : v
  }
}

/** The site, equips and readable points of the request's project. */
export async function loadModel(ctx: HaystackContext): Promise<HaystackModel> {
  const { catalog } = ctx.route
  const project = ctx.project
  const tz = haystackTz(project.time_zone)
  const siteRef = new Ref(siteId(project.id), project.name)
  const site: Dict = { id: siteRef, dis: project.name, site: MARKER, tz }
  if (project.description) site.doc = project.description
  const [components, bounds] = await Promise.all([catalog.componentsInProject.listByProject(project.id), catalog.setpoints.boundsOfProject(project.id)])
  const byId = new Map<string, Dict>([[siteRef.id, site]])
  const equipOf = new Map<number, Ref>()
  const pointsOf = new Map<string, Dict[]>([['', []]])
  const equips: Dict[] = []
  for (const c of components) {
    const ref = new Ref(equipId(c.id), c.display_name)
    const e: Dict = { id: ref, dis: c.display_name, equip: MARKER, siteRef }
    copyTags(e, c.tags)
    equips.push(e)
    byId.set(ref.id, e)
    pointsOf.set(ref.id, [])
    for (const pin of c.pins) if (!equipOf.has(pin.datapoint)) equipOf.set(pin.datapoint, ref)
  }
  const points: Dict[] = []
  // In slices of the catalog (id order), the event loop free in between: 100,000 datapoints
  // never hold it for the whole model (as api/datapoint-pages.ts pages /v2 listings).
  for (let chunk = await catalog.datapoints.slice(project.id, { offset: 0 }, SLICE); chunk.length > 0;
    chunk = chunk.length < SLICE ? [] : await catalog.datapoints.slice(project.id, { afterId: chunk[chunk.length - 1].id }, SLICE)) {
    for (const dp of chunk) addPoint(dp)
    await yieldToLoop()
  }
  return { site, equips, points, byId, pointsOf }

  function addPoint(dp: Datapoint): void {
    if (!ctx.canAccess(dp, 'read')) return
    const dis = dp.tags.dis || dp.dataPointID
    const p: Dict = { id: new Ref(dp.hash_id, dis), dis, point: MARKER, his: MARKER, cur: MARKER, kind: 'Number', tz, siteRef, dataPointID: dp.dataPointID }
    if (dp.tags.unit) p.unit = dp.tags.unit
    const equipRef = equipOf.get(dp.id)
    if (equipRef) p.equipRef = equipRef
    const b = bounds.get(dp.id)
    if (b) { p.writable = MARKER; p.minVal = new Num(b.setpoint_min_value); p.maxVal = new Num(b.setpoint_max_value) }
    copyTags(p, dp.tags)
    points.push(p)
    byId.set(dp.hash_id, p)
    pointsOf.get(equipRef?.id ?? '')!.push(p)
  }
}

/** Records as a grid: columns are the union of their tags, `id` and `dis` first. */
export function recordsGrid(rows: Dict[]): Grid {
  const seen = new Set<string>(rows.length > 0 ? ['id', 'dis'] : [])
  for (const r of rows) for (const k in r) seen.add(k)
  return new Grid({}, [...seen].map((name) => ({ name, meta: {} })), rows)
}
