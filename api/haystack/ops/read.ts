// read (Haystack "Ops", read): the records a filter matches (`filter`, optional `limit`), or the
// records of ids (an `id` column; an unknown id gives a row of nulls in its place, as the
// standard says). Records are those of api/haystack/model.ts: what the caller cannot read is
// not there, for filters, paths and ids alike.
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { FilterError, compileFilter, parseFilter } from '../../../protocol/haystack/filter.ts'
import { Num, Ref, type Dict, type Grid } from '../../../protocol/haystack/values.ts'
import { loadModel, recordsGrid, type HaystackModel } from '../model.ts'
import { HaystackOpError, type HaystackContext, type HaystackOp } from '../op.ts'

/** Ids one read may name (the body limit keeps them fewer anyway). */
export const MAX_READ_IDS = 100_000

export const read: HaystackOp = {
  name: 'read', endpoint: 234, readOnly: true, summary: 'Read entity records by filter or by ids',
  async handler(ctx, request) {
    const names = new Set(request.cols.map((c) => c.name))
    if (names.has('filter')) return byFilter(ctx, request)
    if (names.has('id')) return byIds(ctx, request)
    throw new HaystackOpError('read needs a filter (a `filter` column) or ids (an `id` column)')
  },
}

async function byFilter(ctx: HaystackContext, request: Grid) {
  const row = request.rows[0] ?? {}
  const text = row.filter
  if (typeof text !== 'string') throw new HaystackOpError('read: filter must be a Str')
  const limit = row.limit
  if (limit !== undefined && limit !== null && !(limit instanceof Num && Number.isInteger(limit.val) && limit.val >= 0)) throw new HaystackOpError('read: limit must be a whole Number, 0 or more')
  const max = limit instanceof Num ? limit.val : Infinity
  let filter
  try {
    filter = parseFilter(text)
  } catch (err) {
    if (err instanceof FilterError) throw new HaystackOpError(err.message)
    throw err
  }
  const model = await loadModel(ctx)
  const test = compileFilter(filter, (ref) => model.byId.get(ref.id))
  const out: Dict[] = []
  let n = 0
  for (const rec of records(model)) {
    if (out.length >= max) break
    if (test(rec)) out.push(rec)
    if (++n % 10_000 === 0) await yieldToLoop() // other requests go on between slices
  }
  return recordsGrid(out)
}

function * records(m: HaystackModel): Iterable<Dict> {
  yield m.site
  yield * m.equips
  yield * m.points
}

async function byIds(ctx: HaystackContext, request: Grid) {
  if (request.rows.length > MAX_READ_IDS) throw new HaystackOpError(`read: at most ${MAX_READ_IDS} ids at once, got ${request.rows.length}`)
  const model = await loadModel(ctx)
  const rows = request.rows.map((r) => {
    const id = r.id
    if (!(id instanceof Ref)) throw new HaystackOpError('read: every id must be a Ref')
    return model.byId.get(id.id) ?? {}
  })
  const g = recordsGrid(rows)
  // An id not found is a row of nulls; with none found the columns are still named.
  return g.cols.length > 0 ? g : { ...g, cols: [{ name: 'id', meta: {} }] } as Grid
}
