// Virtual datapoints (spec 2, endpoints under /v2/project/{project_id}). Their states and
// transitions are the engine's lifecycle table (engine/vdp/lifecycle.ts); requests move them
// through engine/vdp/status.ts, which refuses a move the table does not allow (409).
//
// Masking (issue 9, item 9): a caller who may read a virtual datapoint's output need not be
// allowed to read all of its inputs. Every answer that shows pins (create, run, change,
// delete, read one) masks a pin whose input datapoint the caller cannot read through the
// answering endpoint: the pin keeps its window settings, its `dataPointID` becomes null and
// `masked: true` is added. The list shows no pins, only outputs the caller can read.
//
// Replay (76, issue 14 item 2): recomputes a virtual datapoint over [start, end) from its stored
// inputs with the live pipeline (engine/vdp/range-replay.ts) and replaces its outputs there.
// The caller must read the output (else 404, as every endpoint here), write it and read every
// input (else 403). One replay per virtual datapoint at a time. The answer waits up to `wait`
// seconds (default 10): 200 with status `done` and the counts, or 202 with status `running` and
// the inputs replayed so far while it goes on. Repeating the same request polls it: 202 while
// it runs, then once 200 with the result (or `failed` and the error); a request for another
// range while one runs is refused (409).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import type { Datapoint } from '../../catalog/types.ts'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '../../core/errors.ts'
import { ReplayRefused } from '../../engine/vdp/range-replay.ts'
import { formatTimestamp, parseTimestamp } from '../../core/timestamp.ts'
import type { VdpRecord } from '../../catalog/virtual-datapoints.ts'
import { parseVdpConfig, VdpConfigError } from '../../engine/vdp/config.ts'
import { VDP_LIFECYCLE } from '../../engine/vdp/lifecycle.ts'
import type { VdpRunner } from '../../engine/vdp/runner.ts'
import { checkVdpMove, moveVdp, settleVdp } from '../../engine/vdp/status.ts'
import type { RouteContext } from '../route-context.ts'
import { created } from '../envelope.ts'
import { canAccessDatapoint } from '../permissions.ts'
import { at } from '../registry.ts'
import { Envelope, MAX_PAGE, ProjectParams } from '../schemas.ts'

const Log = Type.Object({ message: Type.String(), status_code: Type.Integer(), status_text: Type.String(), ts: Type.String(), type: Type.String() })
const Vdp = Type.Object({
  dataPointID: Type.String(), type: Type.String(), description: Type.String(), status: Type.String(), status_code: Type.Integer(),
  pins: Type.Record(Type.String(), Type.Unknown()), parameters: Type.Record(Type.String(), Type.Unknown()), logs: Type.Array(Log),
})
const Ident = Type.String({ minLength: 1, maxLength: 1000 })
const ByIdQuery = Type.Object({ dataPointID: Ident }, { additionalProperties: false })
const statusText = (code: number) => VDP_LIFECYCLE.text(code)
const ReplayAnswer = Type.Object({
  dataPointID: Type.String(), start: Type.String(), end: Type.String(),
  status: Type.Union([Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')]),
  inputs: Type.Integer({ description: 'input observations of the range replayed (so far)' }),
  outputs: Type.Optional(Type.Integer({ description: 'outputs in the range after the replay' })),
  error: Type.Optional(Type.String()),
})
interface ReplayJob { start: number; end: number; inputs: number; outputs?: number; error?: string; refused?: ReplayRefused; done: Promise<void>; finished: boolean }

export const vdpRoutes: FastifyPluginAsync<RouteContext & { runner: VdpRunner }> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const { catalog, runner } = ctx
  const vdps = catalog.virtualDatapoints
  const known = async (pid: number, id: string): Promise<Pick<Datapoint, 'dataPointID' | 'tags'>> => (await catalog.datapoints.find(pid, id)) ?? { dataPointID: id, tags: {} }
  /** The answer for endpoint `no`: pins naming datapoints the caller cannot read through `no` are masked. */
  const view = async (req: FastifyRequest, no: number, v: VdpRecord) => {
    const filter = req.permissions.datapointFilter(no, v.project_id)
    const inputs = new Map<string, Pick<Datapoint, 'dataPointID' | 'tags'>>()
    for (const id of pinIds(v.pins)) inputs.set(id, await known(v.project_id, id))
    return {
      dataPointID: v.dataPointID, type: v.type, description: v.description, status: statusText(v.status_code), status_code: v.status_code,
      pins: maskPins(v.pins, (id) => canAccessDatapoint(filter, inputs.get(id)!, 'read')), parameters: v.parameters,
      logs: (await vdps.logs(v.id)).map((l) => ({ ...l, status_text: statusText(l.status_code) })),
    }
  }
  const who = (req: FastifyRequest) => req.caller.user.email
  const replays = new Map<number, ReplayJob>() // by virtual datapoint id
  /** The virtual datapoint if the caller may read its output datapoint (else: not found). */
  const readable = async (req: FastifyRequest, no: number, dataPointID: string): Promise<VdpRecord> => {
    const v = await vdps.find(req.project.id, dataPointID)
    const dp = (await catalog.datapoints.find(req.project.id, dataPointID)) ?? { dataPointID, tags: {} }
    if (!v || !canAccessDatapoint(req.permissions.datapointFilter(no, req.project.id), dp, 'read')) {
      throw new NotFoundError(`Virtual datapoint '${dataPointID}' not found in project ${req.project.id}`)
    }
    return v
  }

  /**
   * A virtual datapoint the caller may change (71 run/stop, 72, 73): the output readable (else
   * 404) and writable, as creating it needs (else 403): starting, stopping or deleting one
   * decides what is written into its output (issue 9: access is checked per pair, read is not
   * write). Inputs the caller cannot read do not stop it: they stay masked in the answer.
   */
  const changeable = async (req: FastifyRequest, no: number, dataPointID: string): Promise<VdpRecord> => {
    const v = await readable(req, no, dataPointID)
    const filter = req.permissions.datapointFilter(no, req.project.id)
    if (!canAccessDatapoint(filter, await known(req.project.id, dataPointID), 'write')) throw new ForbiddenError(`No write access to the datapoint '${dataPointID}'`)
    return v
  }

  app.route({
    ...at(70),
    schema: {
      params: ProjectParams,
      querystring: Type.Object({ dataPointID: Ident, type: Type.String({ maxLength: 64 }), description: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: false }),
      body: Type.Object({ pins: Type.Record(Type.String(), Type.Unknown()), parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }, { additionalProperties: false }),
      response: { 201: Envelope(Vdp) },
    },
    handler: async (req, reply) => {
      const pid = req.project.id
      const { dataPointID, type, description = '' } = req.query
      if (!await catalog.projects.vdpEnabled(pid)) throw new InvalidInputError(`Virtual datapoints are not enabled for project ${pid}; the operator enables them with 'lintel project vdp --id ${pid} --enable'`)
      let config
      try {
        config = parseVdpConfig(type, { pins: req.body.pins, parameters: req.body.parameters ?? {} })
      } catch (err) {
        if (err instanceof VdpConfigError) throw new InvalidInputError(err.message)
        throw err
      }
      if (await vdps.find(pid, dataPointID)) throw new ConflictError(`A virtual datapoint '${dataPointID}' is already active in project ${pid}`)
      // Permitted: read on every input, write on the output; else 403, as JSON ingest refuses
      // an unwritable datapoint (DESIGN.md: 403 is a grant the caller lacks; issue 15, drift 4).
      const filter = req.permissions.datapointFilter(70, pid)
      const inputs = config.pins.map((p) => p.dataPointID)
      for (const id of inputs) {
        if (!canAccessDatapoint(filter, (await catalog.datapoints.find(pid, id)) ?? { dataPointID: id, tags: {} }, 'read')) throw new ForbiddenError(`No read access to the input datapoint '${id}'`)
      }
      if (!canAccessDatapoint(filter, (await catalog.datapoints.find(pid, dataPointID)) ?? { dataPointID, tags: {} }, 'write')) throw new ForbiddenError(`No write access to the datapoint '${dataPointID}'`)
      await assertNoCycle(dataPointID, inputs, (id) => vdps.find(pid, id))
      const v = await catalog.transaction(async (tx) => {
        await tx.datapoints.ensure(pid, [dataPointID, ...inputs])
        return tx.virtualDatapoints.create(pid, { dataPointID, type: config.type, description, pins: req.body.pins, parameters: req.body.parameters ?? {}, status_code: VDP_LIFECYCLE.initial }, `Created by ${who(req)}`)
      })
      settleVdp(catalog, v.id) // Created → Ready to start on its own, right after the reply
      return created(reply, await view(req, 70, v))
    },
  })

  app.route({
    ...at(71),
    schema: {
      params: ProjectParams,
      querystring: Type.Object({ dataPointID: Ident, run: Type.Boolean() }, { additionalProperties: false }),
      response: { 200: Vdp },
    },
    handler: async (req) => {
      let v = await changeable(req, 71, req.query.dataPointID)
      if (req.query.run) {
        checkVdpMove(v, 'run')
        if (!await catalog.projects.vdpEnabled(req.project.id)) throw new InvalidInputError(`Virtual datapoints are not enabled for project ${req.project.id}`)
        await moveVdp(catalog, v.id, 'run', `Run requested by ${who(req)}`)
        try {
          await runner.start(await vdps.byId(v.id))
        } catch (err) {
          return view(req, 71, await moveVdp(catalog, v.id, 'start_failed', `Start failed: ${(err as Error).message}`))
        }
        try {
          v = await moveVdp(catalog, v.id, 'started')
        } catch (err) { // stopped or failed while starting: it does not run
          runner.stop(v.id)
          throw err
        }
        return view(req, 71, v)
      }
      await moveVdp(catalog, v.id, 'stop', `Stop requested by ${who(req)}`)
      runner.stop(v.id)
      return view(req, 71, await moveVdp(catalog, v.id, 'stopped'))
    },
  })

  app.route({
    ...at(72),
    schema: {
      params: ProjectParams, querystring: ByIdQuery,
      body: Type.Object({ description: Type.String({ maxLength: 2000 }) }, { additionalProperties: false }),
      response: { 200: Vdp },
    },
    handler: async (req) => view(req, 72, await vdps.setDescription((await changeable(req, 72, req.query.dataPointID)).id, req.body.description)),
  })

  app.route({
    ...at(73),
    schema: { params: ProjectParams, querystring: ByIdQuery, response: { 200: Vdp } },
    handler: async (req) => {
      const v = await changeable(req, 73, req.query.dataPointID)
      const answer = await view(req, 73, await moveVdp(catalog, v.id, 'delete', `Delete requested by ${who(req)}`))
      await vdps.remove(v.id)
      return answer
    },
  })

  app.route({
    ...at(74),
    schema: { params: ProjectParams, querystring: ByIdQuery, response: { 200: Vdp } },
    handler: async (req) => view(req, 74, await readable(req, 74, req.query.dataPointID)),
  })

  app.route({
    ...at(75),
    schema: {
      params: ProjectParams,
      querystring: Type.Object({
        search: Type.Optional(Type.String({ maxLength: 200 })),
        filter: Type.Optional(Type.String({ maxLength: 200 })),
        page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE })),
        per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
      }, { additionalProperties: false }),
      response: {
        200: Type.Object({
          items: Type.Array(Type.Object({ dataPointID: Type.String(), status: Type.String() })),
          meta: Type.Object({ current_page: Type.Integer(), items_per_page: Type.Integer(), total_items: Type.Integer(), total_pages: Type.Integer() }),
        }),
      },
    },
    handler: async (req) => {
      const { search, filter, page = 1, per_page: perPage = 20 } = req.query
      let statusCode: number | undefined
      if (filter !== undefined) {
        const m = /^status_code=(\d{3})$/.exec(filter.trim())
        if (!m) throw new InvalidInputError(`Unsupported filter '${filter}': only status_code=<code> is supported`)
        statusCode = Number(m[1])
      }
      const access = req.permissions.datapointFilter(75, req.project.id)
      const needle = search?.toLowerCase()
      const all: VdpRecord[] = []
      for (const v of await vdps.listByProject(req.project.id)) {
        if ((statusCode === undefined || v.status_code === statusCode) &&
          (needle === undefined || v.dataPointID.toLowerCase().includes(needle) || v.description.toLowerCase().includes(needle)) &&
          canAccessDatapoint(access, (await catalog.datapoints.find(req.project.id, v.dataPointID)) ?? { dataPointID: v.dataPointID, tags: {} }, 'read')) all.push(v)
      }
      const items = all.slice((page - 1) * perPage, page * perPage).map((v) => ({ dataPointID: v.dataPointID, status: statusText(v.status_code) }))
      return { items, meta: { current_page: page, items_per_page: perPage, total_items: all.length, total_pages: Math.ceil(all.length / perPage) } }
    },
  })

  app.route({
    ...at(76),
    schema: {
      params: ProjectParams,
      body: Type.Object({
        dataPointID: Ident,
        start: Type.String({ maxLength: 64, description: 'RFC 3339, inclusive' }),
        end: Type.String({ maxLength: 64, description: 'RFC 3339, exclusive' }),
        wait: Type.Optional(Type.Number({ minimum: 0, maximum: 60, description: 'seconds to wait for the result (default 10)' })),
      }, { additionalProperties: false }),
      response: { 200: ReplayAnswer, 202: ReplayAnswer },
    },
    handler: async (req, reply) => {
      const pid = req.project.id
      const { dataPointID, wait = 10 } = req.body
      const start = parseTimestamp(req.body.start)
      const end = parseTimestamp(req.body.end)
      if (start === undefined) throw new InvalidInputError(`Invalid start '${req.body.start}': expected an RFC 3339 timestamp`)
      if (end === undefined) throw new InvalidInputError(`Invalid end '${req.body.end}': expected an RFC 3339 timestamp`)
      if (start >= end) throw new InvalidInputError('start must be before end')
      const v = await readable(req, 76, dataPointID)
      const filter = req.permissions.datapointFilter(76, pid)
      if (!canAccessDatapoint(filter, await known(pid, dataPointID), 'write')) throw new ForbiddenError(`No write access to the datapoint '${dataPointID}'`)
      for (const id of pinIds(v.pins)) {
        if (!canAccessDatapoint(filter, await known(pid, id), 'read')) throw new ForbiddenError(`No read access to the input datapoint '${id}'`)
      }
      if (!runner.replay) throw new ConflictError('Replay runs where virtual datapoints run: this process has no worker role')
      const answer = (job: ReplayJob) => ({
        dataPointID, start: formatTimestamp(job.start), end: formatTimestamp(job.end), status: job.error !== undefined ? 'failed' as const : job.finished ? 'done' as const : 'running' as const,
        inputs: job.inputs, ...(job.outputs !== undefined ? { outputs: job.outputs } : {}), ...(job.error !== undefined ? { error: job.error } : {}),
      })
      let job = replays.get(v.id)
      if (job && (job.start !== start || job.end !== end)) {
        if (!job.finished) throw new ConflictError(`A replay of '${dataPointID}' is under way (${formatTimestamp(job.start)} to ${formatTimestamp(job.end)})`)
        replays.delete(v.id) // an uncollected result of another range
        job = undefined
      }
      if (!job) {
        const fresh: ReplayJob = { start, end, inputs: 0, finished: false, done: Promise.resolve() }
        fresh.done = runner.replay(v, start, end, (n) => { fresh.inputs = n }).then(
          (r) => { fresh.inputs = r.inputs; fresh.outputs = r.outputs },
          (err: Error) => {
            if (err instanceof ReplayRefused) fresh.refused = err
            fresh.error = `replay failed: ${err.message}`
          },
        ).finally(() => {
          fresh.finished = true
          setTimeout(() => { if (replays.get(v.id) === fresh) replays.delete(v.id) }, 3_600_000).unref() // uncollected results go after an hour
        })
        replays.set(v.id, job = fresh)
      }
      const current = job
      if (!current.finished && wait > 0) {
        let timer: NodeJS.Timeout | undefined
        await Promise.race([current.done, new Promise<void>((resolve) => { timer = setTimeout(resolve, wait * 1000) })])
        clearTimeout(timer)
      }
      if (!current.finished) return reply.code(202).send(answer(current))
      replays.delete(v.id) // collected
      if (current.refused?.kind === 'busy') throw new ConflictError(`A replay of '${dataPointID}' is under way`)
      if (current.refused) throw new InvalidInputError(`Virtual datapoint '${dataPointID}' cannot be replayed: ${current.refused.message}`)
      return answer(current)
    },
  })
}

/** The input dataPointIDs the pins name. */
function pinIds(pins: Record<string, unknown>): string[] {
  const ids: string[] = []
  for (const pin of Object.values(pins)) {
    const id = pin && typeof pin === 'object' ? (pin as { dataPointID?: unknown }).dataPointID : undefined
    if (typeof id === 'string') ids.push(id)
  }
  return ids
}

/** Pins as stored, except that a pin whose input `canRead` refuses shows `dataPointID: null, masked: true`. */
export function maskPins(pins: Record<string, unknown>, canRead: (dataPointID: string) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, pin] of Object.entries(pins)) {
    const id = pin && typeof pin === 'object' ? (pin as { dataPointID?: unknown }).dataPointID : undefined
    out[name] = typeof id === 'string' && !canRead(id) ? { ...(pin as object), dataPointID: null, masked: true } : pin
  }
  return out
}

/** A virtual datapoint may not depend on itself, directly or through other ones. */
async function assertNoCycle(output: string, inputs: string[], vdpOf: (id: string) => Promise<VdpRecord | undefined>): Promise<void> {
  const seen = new Set<string>()
  const stack = [...inputs]
  while (stack.length > 0) {
    const id = stack.pop()!
    if (id === output) throw new InvalidInputError(`Cycle: '${output}' would depend on itself through its inputs`)
    if (seen.has(id)) continue
    seen.add(id)
    const v = await vdpOf(id)
    if (v) for (const pin of Object.values(v.pins)) if (pin && typeof pin === 'object' && 'dataPointID' in pin) stack.push(String((pin as { dataPointID: unknown }).dataPointID))
  }
}
