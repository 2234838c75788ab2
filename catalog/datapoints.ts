// Datapoints of a project: integer id (the store's series key), dataPointID and hash id.
import { InvalidInputError, TooLargeError } from '../core/errors.ts'
import { identifierProblem } from '../core/identifier.ts'
import type { Datapoint } from './types.ts'
import type { TagWrite } from './entity-tags.ts'

/** Datapoints a project may hold unless the operator sets another quota (migration 4). */
export const DEFAULT_MAX_DATAPOINTS = 100_000

export interface DatapointRow { id: number; project_id: number; dataPointID: string; hash_id: string }
export const DATAPOINT_COLUMNS = 'id, project_id, datapoint_id AS "dataPointID", hash_id'

export const TAGS_OF_PROJECT = 'SELECT t.datapoint, t.key, t.value FROM tags t JOIN datapoints d ON d.id = t.datapoint WHERE d.project_id = ?'
export interface TagOfRow { datapoint: number; key: string; value: string }

export const TAGGED_OF_PROJECT = 'SELECT d.id, d.datapoint_id AS "dataPointID", t.key, t.value FROM tags t JOIN datapoints d ON d.id = t.datapoint WHERE d.project_id = ?'
export type TaggedRow = { id: number; dataPointID: string } & TagWrite
export interface Tagged { id: number; dataPointID: string; tags: Record<string, string> }

/** The tagged datapoints of TAGGED_OF_PROJECT's rows (one row per tag). */
export function tagged(rows: TaggedRow[]): Tagged[] {
  const byId = new Map<number, Tagged>()
  for (const r of rows) {
    let d = byId.get(r.id)
    if (!d) byId.set(r.id, d = { id: r.id, dataPointID: r.dataPointID, tags: {} })
    d.tags[r.key] = r.value
  }
  return [...byId.values()]
}

/** Datapoints from their rows and the tag rows of (some of) them. */
export function withTags(rows: DatapointRow[], tagRows: TagOfRow[]): Datapoint[] {
  const tags = new Map<number, Record<string, string>>()
  for (const t of tagRows) {
    let rec = tags.get(t.datapoint)
    if (!rec) tags.set(t.datapoint, rec = {})
    rec[t.key] = t.value
  }
  return rows.map((r) => ({ ...r, tags: tags.get(r.id) ?? {} }))
}

/** Throws the 413 when `more` new datapoints do not fit into the project's quota. */
export function assertRoom(projectId: number, { max, used }: { max: number; used: number }, more: number): void {
  if (used + more > max) {
    throw new TooLargeError(`Datapoint quota of project ${projectId} reached: it holds ${used} of at most ${max} datapoints ` +
      `(set by the operator), so ${more} new datapoint(s) cannot be created`)
  }
}

export function assertQuota(max: number): void {
  if (!(Number.isSafeInteger(max) && max >= 0)) throw new InvalidInputError(`A datapoint quota must be a non-negative integer, got ${max}`)
}

/** The identifiers not yet known (first occurrence each), or the 400 of the first bad one. */
export function freshIdentifiers(identifiers: Iterable<string>, known: (ident: string) => boolean): string[] {
  const seen = new Set<string>()
  const fresh: string[] = []
  for (const ident of identifiers) {
    if (seen.has(ident)) continue
    seen.add(ident)
    if (known(ident)) continue
    const problem = identifierProblem(ident)
    if (problem) throw new InvalidInputError(`Refused: ${problem}`)
    fresh.push(ident)
  }
  return fresh
}

/** Datapoints findMany remembers at most; past it the memory starts over. */
export const MAX_REMEMBERED = 200_000
