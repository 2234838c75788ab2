// Time series over HTTP (spec 1): JSON ingest (50) and reads (52). Every datapoint touched
// is checked against the caller's TagAuths for the endpoint (read or write).
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { Readable } from 'node:stream'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { InvalidInputError } from '../../core/errors.ts'
import { ANSWER_TAIL, answerHead, encodeEntries, type AnswerHead } from '../../engine/answer-json.ts'
import { READ_CHUNK, readInChunks } from '../../engine/chunked-read.ts'
import { autoInterval, autoSamplingApplies, parseCalendarRate, parseSamplerate, planRead, type ReadPlan } from '../../engine/read-plan.ts'
import { AGGREGATES, type Aggregate, type Interval, type MeanPoint, type Point, type TimeseriesStore } from '../../engine/store/port.ts'
import { converterFor } from '../../engine/units.ts'
import type { RateLookup } from '../../engine/currency.ts'
import { CheckedObservations, validateJsonObservationsInSteps } from '../../ingest/json-observations.ts'
import { ObservationWriter } from '../../ingest/observation-writer.ts'
import { formatTimestamp, parseTimestamp } from '../../core/timestamp.ts'
import type { RouteContext } from '../route-context.ts'
import { done } from '../envelope.ts'
import { DatapointAccess } from '../datapoint-access.ts'
import { at } from '../registry.ts'
import { Id, ProjectParams } from '../schemas.ts'
import { CSV_TYPE, rawCsv, sampleCsv, wantsCsv } from '../timeseries-csv.ts'

const ReadQuery = Type.Object({
  project_id: Id,
  dataPointID: Type.String({ minLength: 1, maxLength: 1000 }),
  start: Type.Optional(Type.String({ maxLength: 64 })),
  end: Type.Optional(Type.String({ maxLength: 64 })),
  max: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000 })),
  samplerate: Type.Optional(Type.String({ maxLength: 16, description: 'integer followed by s, m, h or d (fixed length, epoch-aligned); extension: 1D, 1W, 1M for a calendar day, week (from Monday) or month in the project time zone' })),
  aggregate: Type.Optional(Type.Union(AGGREGATES.map((a) => Type.Literal(a)), { description: 'Extension (issue 14): what each sample interval reports, default mean; the entry field is named after it (mean, min, max, sum, first, last, count)' })),
  units_system: Type.Optional(Type.String({ maxLength: 32 })),
  currency_system: Type.Optional(Type.String({ maxLength: 32 })),
  units: Type.Optional(Type.String({ maxLength: 64 })),
  format: Type.Optional(Type.String({ maxLength: 16, description: 'csv: the answer as CSV (datapoint,value,time with a header line; docs/export.md), as with Accept: text/csv; only csv is accepted' })),
}, { additionalProperties: false })

const ReadResponse = Type.Object({
  dataPointID: Type.String(),
  tags: Type.Array(Type.Object({ key: Type.String(), value: Type.String() })),
  data: Type.Array(Type.Object({
    time: Type.String(),
    value: Type.Optional(Type.Number()),
    mean: Type.Optional(Type.Number()),
    ...Object.fromEntries(AGGREGATES.filter((a) => a !== 'mean').map((a) => [a, Type.Optional(Type.Number())])),
  })),
})

function timeParam(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const t = parseTimestamp(text)
  if (t === undefined) throw new InvalidInputError(`Cannot parse ${name} '${text}': use an RFC 3339 timestamp`)
  return t
}

async function sampled(store: TimeseriesStore, series: number, plan: Extract<ReadPlan, { kind: 'sample' }>): Promise<MeanPoint[]> {
  const buckets = await store.sample(series, plan.query)
  return plan.lastBuckets ? buckets.slice(-plan.lastBuckets) : buckets
}

/**
 * The JSON text of a raw read too large for one chunk, produced chunk by chunk (issue 9,
 * item 8): each chunk is read, formatted and written, then the event loop gets a turn, and
 * the next chunk is read only when the socket has taken the previous one (backpressure).
 */
async function* rawJson(head: AnswerHead, first: Point[], rest: AsyncGenerator<Point[]>, convert: Convert | undefined): AsyncGenerator<string> {
  yield answerHead(head)
  const pick = convert ? (p: Point) => convert(p.value, p.time) : (p: Point) => p.value
  let sep = ''
  const text = (points: Point[]) => {
    if (points.length === 0) return ''
    const out = sep + encodeEntries(points, pick, 'value')
    sep = ','
    return out
  }
  yield text(first)
  for await (const points of rest) yield text(points)
  yield ANSWER_TAIL
}

/**
 * The JSON text of a sampled read encoded on the main thread (only with a unit or currency
 * conversion: without one the store's reader worker encodes it), in slices with a turn of
 * the event loop between them (issue 14 item 5).
 */
async function* sampleJson(head: AnswerHead, points: MeanPoint[], field: string, convert: Convert | undefined): AsyncGenerator<string> {
  const pick = convert ? (p: MeanPoint) => convert(p.mean, p.time) : (p: MeanPoint) => p.mean
  let out = answerHead(head)
  for (let i = 0; i < points.length; i += ENCODE_SLICE) {
    out += encodeEntries(points, pick, field, i, Math.min(points.length, i + ENCODE_SLICE))
    if (i + ENCODE_SLICE < points.length) {
      yield out
      out = ''
      await yieldToLoop()
    }
  }
  yield out + ANSWER_TAIL
}

/** Entries encoded per turn of the event loop (~1 ms each). */
const ENCODE_SLICE = 4096

type Convert = (v: number, time: number) => number

/** Bytes of a whole answer, sent as they are (no response-schema serialization). */
function sendAnswer(reply: FastifyReply, body: Uint8Array) {
  return reply.type('application/json; charset=utf-8').send(Buffer.from(body.buffer, body.byteOffset, body.byteLength))
}

export const timeseriesRoutes: FastifyPluginAsync<RouteContext & { ingestBodyLimit: number }> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const { catalog } = ctx
  const store = ctx.store
  const writer = new ObservationWriter(catalog, ctx.ingest)
  const access = new DatapointAccess(catalog)
  /** The exchange rates for a conversion (engine/currency.ts looks them up synchronously): read once per request. */
  const ratesFor = async (q: { currency_system?: string }): Promise<RateLookup> => {
    if (q.currency_system === undefined) return () => []
    const all = await catalog.exchangeRates.list() // ascending validity start within a pair
    return (base, quote) => all.filter((r) => r.base === base && r.quote === quote)
  }

  app.route({
    ...at(50),
    config: { endpoint: 50, operation: '', observationsBody: true },
    bodyLimit: ctx.ingestBodyLimit,
    schema: {
      params: ProjectParams,
      // Documented shape; each observation is validated by validateJsonObservationsInSteps with
      // messages naming the identifier and the index.
      body: Type.Record(Type.String(), Type.Array(Type.Object({ time: Type.String(), value: Type.Number() }))),
      response: { 200: Type.Object({ success: Type.Literal(true), operation: Type.String(), resource: Type.Object({}) }) },
    },
    // Skip the generic validator: a 300k-observation body is validated once, below.
    validatorCompiler: () => () => true,
    handler: async (req, reply) => {
      const rows = req.body instanceof CheckedObservations ? req.body.rows : await validateJsonObservationsInSteps(req.body)
      await writer.write(req.project.id, rows, access.test(req, 50, 'write'))
      return done(reply, {})
    },
  })

  app.route({
    ...at(52),
    schema: { querystring: ReadQuery, response: { 200: ReadResponse } },
    handler: async (req, reply) => {
      const q = req.query
      const csv = wantsCsv(q.format, req.headers.accept)
      const dp = await access.readable(req, 52, q.dataPointID)
      const conversion = converterFor(dp.dataPointID, dp.tags, q, await ratesFor(q))
      const convert = conversion?.convert
      const start = timeParam('start', q.start)
      const end = timeParam('end', q.end)
      if (start !== undefined && end !== undefined && start > end) throw new InvalidInputError('start must not be after end')
      let interval: Interval | undefined
      if (q.samplerate !== undefined) {
        interval = parseSamplerate(q.samplerate) ??
          (/^1[DWM]$/.test(q.samplerate) ? parseCalendarRate(q.samplerate, (await catalog.projects.settings(req.project.id)).time_zone) : undefined)
        if (interval === undefined) throw new InvalidInputError(`Invalid samplerate '${q.samplerate}': use an integer followed by s, m, h or d, e.g. 15m, at most 36500d (100 years), or 1D, 1W, 1M for calendar days, weeks, months`)
      } else if (autoSamplingApplies({ start, end, samplerate: q.samplerate })) {
        const n = (await catalog.projects.settings(req.project.id)).sampling_n
        if (await store.count(dp.id, start, end) > n) interval = autoInterval(start!, end!, n)
      }
      const aggregate = (q.aggregate ?? 'mean') as Aggregate
      const plan = planRead({ start, end, max: q.max, interval, aggregate })
      // The tags describe the delivered values: a converted unit or currency replaces the stored one.
      const tags = Object.entries(conversion?.tags ?? dp.tags).map(([key, value]) => ({ key, value }))
      const head = { dataPointID: dp.dataPointID, tags }
      if (plan.kind === 'sample') {
        // A count is not in any unit; every other aggregate is a value of the series.
        const conv = aggregate === 'count' ? undefined : convert
        if (csv) return reply.type(CSV_TYPE).send(Readable.from(sampleCsv(dp.dataPointID, await sampled(store, dp.id, plan), aggregate, conv)) as never)
        if (!conv && store.sampleAnswer) return sendAnswer(reply, await store.sampleAnswer(dp.id, plan.query, { head: answerHead(head), field: aggregate, lastBuckets: plan.lastBuckets }))
        const points = await sampled(store, dp.id, plan)
        const json = sampleJson(head, points, aggregate, conv)
        reply.type('application/json; charset=utf-8')
        if (points.length <= ENCODE_SLICE) return reply.send((await json.next()).value as never)
        return reply.send(Readable.from(json) as never)
      }
      if (csv) return reply.type(CSV_TYPE).send(Readable.from(rawCsv(dp.dataPointID, readInChunks(store, dp.id, plan.query), convert)) as never)
      // A read of at most one chunk is answered whole by the store when it can encode it.
      const limit = plan.query.limit ?? 0
      if (!convert && store.readAnswer && limit > 0 && limit <= READ_CHUNK) return sendAnswer(reply, await store.readAnswer(dp.id, plan.query, { head: answerHead(head), field: 'value' }))
      const chunks = readInChunks(store, dp.id, plan.query)
      const first: Point[] = (await chunks.next()).value ?? []
      const next = await chunks.next()
      if (next.done) {
        const data = first.map((p) => ({ time: formatTimestamp(p.time), value: convert ? convert(p.value, p.time) : p.value }))
        return { dataPointID: dp.dataPointID, tags, data }
      }
      // More than one chunk: streamed, so neither the loop nor memory holds the whole range.
      async function* rest() { yield next.value!; yield* chunks }
      return reply.type('application/json; charset=utf-8').send(Readable.from(rawJson(head, first, rest(), convert)) as never)
    },
  })
}
