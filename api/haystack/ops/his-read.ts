// hisRead (project-haystack.org/doc/Ops#hisRead): the raw observations of one point in a range
// (his-range.ts: today, yesterday, a date, two dates, date-times), from the store as stored, in
// [start, end). Timestamps are DateTimes in the project's time zone, values Nums in the point's
// unit; the grid meta has id, hisStart and hisEnd. The rows are read in chunks of the store
// (engine/chunked-read.ts) and streamed, so a year of minutes (525,600 rows) never sits in
// memory at once and the event loop gets a turn between chunks.
import { systemClock } from '../../../core/clock/clock.ts'
import { readInChunks } from '../../../engine/chunked-read.ts'
import { HisRangeError, parseHisRange, type HisSpan } from '../../../protocol/haystack/his-range.ts'
import { DateTime, HDate, isoOf, Num, type Dict, type HVal } from '../../../protocol/haystack/values.ts'
import { HaystackOpError, type GridStream, type HaystackOp } from '../op.ts'
import { pointRef, resolvePoint, unitOf } from '../his/points.ts'

/** The range as text: a Str, or (from a GET query) a Date or DateTime the query reader decoded. */
function rangeText(v: HVal | undefined): string {
  if (typeof v === 'string') return v
  if (v instanceof HDate) return v.val
  if (v instanceof DateTime) return isoOf(v)
  throw new HaystackOpError('hisRead: the request needs a range, a Str such as "today" or "2024-03-01,2024-03-31"')
}

export const hisRead: HaystackOp = {
  name: 'hisRead', endpoint: 236, readOnly: true, summary: 'Read time series data of a point',
  async handler(ctx, request): Promise<GridStream> {
    const row = request.rows[0] ?? {}
    const dp = await resolvePoint(ctx, row.id, 'hisRead')
    const zone = ctx.project.time_zone
    const now = (ctx.services.clock ?? systemClock).now()
    let span: HisSpan
    try {
      span = parseHisRange(rangeText(row.range), zone, now)
    } catch (err) {
      if (err instanceof HisRangeError) throw new HaystackOpError(err.message)
      throw err
    }
    const unit = unitOf(dp)
    const store = ctx.route.store
    const signal = ctx.signal
    // One batch of rows per chunk of the store: the writer steps once per chunk, not per row.
    async function * rows(): AsyncGenerator<Dict[]> {
      for await (const chunk of readInChunks(store, dp.id, { start: span.start, end: span.end })) {
        if (signal.aborted) return
        yield chunk.map((p) => ({ ts: new DateTime(p.time, zone), val: new Num(p.value, unit) }))
      }
    }
    return {
      // "From a date-time on" has no end: hisEnd says until when the answer speaks (now).
      meta: { id: pointRef(dp), hisStart: new DateTime(span.start, zone), hisEnd: new DateTime(span.end ?? Math.max(now, span.start), zone) },
      cols: [{ name: 'ts', meta: {} }, { name: 'val', meta: unit ? { unit } : {} }],
      rows: rows(),
    }
  },
}
