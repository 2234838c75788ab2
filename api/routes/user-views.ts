// Favorites and plot views (issue 33; spec 1 access rule 9): per-user metadata in a project,
// endpoints 191-198 under /v2/project/{project_id}. Each call needs its endpoint in the project
// (as every Project endpoint); the datapoints it reaches are those its TagAuths let the caller
// read. Every user sees only their own (another user's plot view answers 404 like an unknown
// one); they are deleted with the user, the project, or (favorites) the datapoint.
//
// A favorite names a datapoint that exists and is readable (else 404, like an unknown one).
// A plot view keeps its datapoints by identifier: on create and change each must be readable
// (403 otherwise); on every read, one the caller cannot read any more (roles or tags changed)
// is masked, `{"dataPointID": null, "masked": true}`, as virtual datapoints mask their pins.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { Type, type Static } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { NotFoundError, TooLargeError } from '../../core/errors.ts'
import { formatTimestamp, parseTimestamp } from '../../core/timestamp.ts'
import { MAX_FAVORITES_PER_PROJECT, MAX_PLOT_VIEWS_PER_PROJECT, type Favorite, type PlotView, type PlotViewSpec } from '../../catalog/user-views.ts'
import { AGGREGATES } from '../../engine/store/port.ts'
import { InvalidInputError } from '../../core/errors.ts'
import type { RouteContext } from '../route-context.ts'
import { created, deleted, updated } from '../envelope.ts'
import { DatapointAccess } from '../datapoint-access.ts'
import { at } from '../registry.ts'
import { Envelope, Id, Name, ProjectParams } from '../schemas.ts'

const DataPointID = Type.String({ minLength: 1, maxLength: 1000 })
const FavoriteOut = Type.Object({ dataPointID: Type.String(), created_at: Type.String() })
const SpecFields = {
  datapoints: Type.Array(Type.Object({ dataPointID: DataPointID, units: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }, { additionalProperties: false }), { minItems: 1, maxItems: 50 }),
  start: Type.Optional(Type.String({ maxLength: 64 })),
  end: Type.Optional(Type.String({ maxLength: 64 })),
  relative: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}[mhdw]$', description: 'up to now: minutes, hours, days or weeks, e.g. 24h' })),
  samplerate: Type.Optional(Type.String({ pattern: '^(auto|[1-9][0-9]{0,5}[smhd]|1[DWM])$', description: 'as GET /v2/datapoint/timeseries, or auto' })),
  aggregate: Type.Optional(Type.Union(AGGREGATES.map((a) => Type.Literal(a)))),
  units_system: Type.Optional(Type.Union(['metric', 'SI', 'imperial', 'US'].map((u) => Type.Literal(u)))),
}
const PlotViewBody = Type.Object({ name: Name, ...SpecFields }, { additionalProperties: false })
const PlotViewChange = Type.Partial(PlotViewBody, { additionalProperties: false })
const PlotViewOut = Type.Object({
  id: Type.Integer(), project_id: Type.Integer(), name: Type.String(),
  datapoints: Type.Array(Type.Object({ dataPointID: Type.Union([Type.String(), Type.Null()]), units: Type.Optional(Type.String()), masked: Type.Optional(Type.Boolean()) })),
  start: Type.Optional(Type.String()), end: Type.Optional(Type.String()), relative: Type.Optional(Type.String()),
  samplerate: Type.Optional(Type.String()), aggregate: Type.Optional(Type.String()), units_system: Type.Optional(Type.String()),
  created_at: Type.String(), updated_at: Type.String(),
})
const PlotViewParams = Type.Object({ project_id: Id, plotview_id: Id })

/** The range of a spec: start and end (RFC 3339, start before end), or relative, not both. */
function checkedSpec(b: Partial<Static<typeof PlotViewBody>> | PlotViewSpec): PlotViewSpec {
  const { name: _name, ...spec } = b as Partial<Static<typeof PlotViewBody>>
  const fixed = spec.start !== undefined || spec.end !== undefined
  if (fixed && spec.relative !== undefined) throw new InvalidInputError('Give either start and end, or relative, not both')
  if (!fixed && spec.relative === undefined) throw new InvalidInputError('A plot view needs a range: start and end, or relative (e.g. 24h)')
  if (fixed) {
    const start = spec.start === undefined ? undefined : parseTimestamp(spec.start)
    const end = spec.end === undefined ? undefined : parseTimestamp(spec.end)
    if (start === undefined) throw new InvalidInputError(`start must be an RFC 3339 timestamp, got ${JSON.stringify(spec.start ?? null)}`)
    if (end === undefined) throw new InvalidInputError(`end must be an RFC 3339 timestamp, got ${JSON.stringify(spec.end ?? null)}`)
    if (end <= start) throw new InvalidInputError('end must be after start')
    spec.start = formatTimestamp(start)
    spec.end = formatTimestamp(end)
  }
  return spec as PlotViewSpec
}

const iso = (us: number) => formatTimestamp(us)
const favoriteOut = (f: Favorite) => ({ dataPointID: f.dataPointID, created_at: iso(f.created_at) })

export const userViewRoutes: FastifyPluginAsync<RouteContext> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const { catalog } = ctx
  const access = new DatapointAccess(catalog)
  const nowUs = () => Date.now() * 1000

  /** The answer for endpoint `no`: datapoints the caller cannot read through it now are masked. */
  const viewOut = async (req: FastifyRequest, no: number, v: PlotView) => {
    const readable = access.test(req, no, 'read')
    const datapoints = await Promise.all(v.spec.datapoints.map(async (d) =>
      (readable(await access.known(v.project_id, d.dataPointID)) ? d : { ...d, dataPointID: null, masked: true })))
    return { id: v.id, project_id: v.project_id, name: v.name, ...v.spec, datapoints, created_at: iso(v.created_at), updated_at: iso(v.updated_at) }
  }
  const ownView = async (req: FastifyRequest, id: number): Promise<PlotView> => {
    const v = await catalog.userViews.plotView(req.caller.user.id, req.project.id, id)
    if (!v) throw new NotFoundError(`Plot view ${id} not found`)
    return v
  }
  const requireReadable = async (req: FastifyRequest, no: number, spec: Partial<PlotViewSpec>) => {
    for (const d of spec.datapoints ?? []) await access.require(req, no, d.dataPointID, 'read')
  }

  app.route({
    ...at(191),
    schema: { params: ProjectParams, response: { 200: Type.Object({ favorites: Type.Array(FavoriteOut) }) } },
    handler: async (req) => {
      const readable = access.test(req, 191, 'read')
      const all = await catalog.userViews.favorites(req.caller.user.id, req.project.id)
      const known = await catalog.datapoints.findMany(req.project.id, all.map((f) => f.dataPointID))
      return { favorites: all.filter((f) => readable(known.get(f.dataPointID) ?? { dataPointID: f.dataPointID, tags: {} })).map(favoriteOut) }
    },
  })
  app.route({
    ...at(192),
    schema: { params: ProjectParams, body: Type.Object({ dataPointID: DataPointID }, { additionalProperties: false }), response: { 201: Envelope(FavoriteOut) } },
    handler: async (req, reply) => {
      const dp = await access.readable(req, 192, req.body.dataPointID)
      if (await catalog.userViews.countFavorites(req.caller.user.id, req.project.id) >= MAX_FAVORITES_PER_PROJECT) {
        throw new TooLargeError(`At most ${MAX_FAVORITES_PER_PROJECT} favorites per project: remove one first`)
      }
      return created(reply, favoriteOut(await catalog.userViews.addFavorite(req.caller.user.id, dp.id, nowUs())))
    },
  })
  app.route({
    ...at(193),
    schema: { params: ProjectParams, querystring: Type.Object({ dataPointID: DataPointID }, { additionalProperties: false }), response: { 200: Envelope(Type.Object({ dataPointID: Type.String() })) } },
    handler: async (req, reply) => {
      const dp = await access.readable(req, 193, req.query.dataPointID)
      if (!(await catalog.userViews.removeFavorite(req.caller.user.id, dp.id))) throw new NotFoundError(`'${dp.dataPointID}' is not a favorite`)
      return deleted(reply, { dataPointID: dp.dataPointID })
    },
  })
  app.route({
    ...at(194),
    schema: { params: ProjectParams, response: { 200: Type.Object({ plotviews: Type.Array(PlotViewOut) }) } },
    handler: async (req) => ({ plotviews: await Promise.all((await catalog.userViews.plotViews(req.caller.user.id, req.project.id)).map((v) => viewOut(req, 194, v))) }),
  })
  app.route({
    ...at(195),
    schema: { params: ProjectParams, body: PlotViewBody, response: { 201: Envelope(PlotViewOut) } },
    handler: async (req, reply) => {
      const spec = checkedSpec(req.body)
      await requireReadable(req, 195, spec)
      if (await catalog.userViews.countPlotViews(req.caller.user.id, req.project.id) >= MAX_PLOT_VIEWS_PER_PROJECT) {
        throw new TooLargeError(`At most ${MAX_PLOT_VIEWS_PER_PROJECT} plot views per project: delete one first`)
      }
      return created(reply, await viewOut(req, 195, await catalog.userViews.createPlotView(req.caller.user.id, req.project.id, req.body.name, spec, nowUs())))
    },
  })
  app.route({
    ...at(196),
    schema: { params: PlotViewParams, response: { 200: PlotViewOut } },
    handler: async (req) => viewOut(req, 196, await ownView(req, req.params.plotview_id)),
  })
  app.route({
    ...at(197),
    schema: { params: PlotViewParams, body: PlotViewChange, response: { 200: Envelope(PlotViewOut) } },
    handler: async (req, reply) => {
      const old = await ownView(req, req.params.plotview_id)
      const { name, ...fields } = req.body
      // A range given replaces the old one (start and end, or relative).
      const range = fields.start !== undefined || fields.end !== undefined || fields.relative !== undefined
        ? { start: undefined, end: undefined, relative: undefined } : {}
      const spec = checkedSpec({ ...old.spec, ...range, ...fields })
      await requireReadable(req, 197, { datapoints: fields.datapoints })
      return updated(reply, await viewOut(req, 197, await catalog.userViews.updatePlotView(old.id, { name, spec }, nowUs())))
    },
  })
  app.route({
    ...at(198),
    schema: { params: PlotViewParams, response: { 200: Envelope(Type.Object({ id: Type.Integer() })) } },
    handler: async (req, reply) => {
      const v = await ownView(req, req.params.plotview_id)
      await catalog.userViews.deletePlotView(v.id)
      return deleted(reply, { id: v.id })
    },
  })
}
