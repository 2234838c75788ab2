// Mapped components (spec 3 "Mapped components"; issue 12 item 2), endpoints 113-124 under
// /v2/project/{project_id}. Shapes the spec does not show (create, pin-datapoint, attribute,
// suggestions) are designed here and documented in the README and OpenAPI by these schemas.
//
// Access: every endpoint needs its grant; datapoints are seen through the endpoint's TagAuths
// (spec 1 rule 5). A mapping may only name datapoints the caller may read (403 otherwise); a
// pin mapped to a datapoint the caller cannot read shows `dataPointID: null`, and changing or
// deleting such a mapping (or the whole component) is refused. Another company's project is 404.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { ComponentInProject } from '../../catalog/components-in-project.ts'
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '../../core/errors.ts'
import { valueProblem, type Component, type ComponentLibrary, type Pin } from '../../engine/analytics/library.ts'
import { suggest } from '../../engine/analytics/suggest.ts'
import type { RouteContext } from '../route-context.ts'
import { created, deleted, updated } from '../envelope.ts'
import { DatapointAccess } from '../datapoint-access.ts'
import { at } from '../registry.ts'
import { Envelope, Id, ProjectParams } from '../schemas.ts'
import { AbstractComponent, componentOr404, PinPlaceholder } from './components.ts'

const Tags = Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.String({ maxLength: 2000 }), { maxProperties: 50 })
const ListItem = Type.Object({ id: Type.Integer(), component_id: Type.Integer(), project_id: Type.Integer(), nameEN: Type.String(), display_name: Type.String() })
const Attribute = Type.Object({ alphanumeric_id: Type.String(), id: Type.Integer(), key: Type.String(), value: Type.String() })
export const MappedComponent = Type.Object({
  id: Type.Integer(), project_id: Type.Integer(), nameEN: Type.String(), display_name: Type.String(), component: AbstractComponent,
  pins: Type.Array(Type.Object({ ...PinPlaceholder.properties, dataPointID: Type.Union([Type.String(), Type.Null()]) })),
  attributes: Type.Array(Attribute), tags: Type.Record(Type.String(), Type.String()),
})
const CipParams = Type.Object({ project_id: Id, componentinproject_id: Id })
const PinRef = { pin_id: Type.Optional(Id), pin_alphanumeric_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }
const PinsBody = Type.Object({
  componentinproject_id: Id,
  pins: Type.Array(Type.Object({ ...PinRef, dataPointID: Type.String({ minLength: 1, maxLength: 1000 }) }, { additionalProperties: false }), { minItems: 1, maxItems: 100 }),
}, { additionalProperties: false })
const AttrRef = { attribute_id: Type.Optional(Id), key: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }
const AttributesBody = Type.Object({
  componentinproject_id: Id,
  attributes: Type.Array(Type.Object({ ...AttrRef, value: Type.Union([Type.String({ maxLength: 100_000 }), Type.Number(), Type.Boolean(), Type.Object({}), Type.Array(Type.Unknown())]) }, { additionalProperties: false }), { minItems: 1, maxItems: 100 }),
}, { additionalProperties: false })
const Suggestion = Type.Object({
  pin_id: Type.Integer(), alphanumeric_id: Type.String(), nameEN: Type.String(), nameDE: Type.String(), dataPointID: Type.Union([Type.String(), Type.Null()]),
  candidates: Type.Array(Type.Object({ dataPointID: Type.String(), score: Type.Number(), unit: Type.Union([Type.String(), Type.Null()]), reasons: Type.Array(Type.String()) })),
})

export const componentInProjectRoutes: FastifyPluginAsync<RouteContext & { library: ComponentLibrary }> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const { catalog, library } = ctx
  const cips = catalog.componentsInProject

  const access = new DatapointAccess(catalog)
  const readable = (req: FastifyRequest, no: number, dataPointID: string) => access.allows(req, no, dataPointID, 'read')
  const mine = async (req: FastifyRequest, id: number): Promise<{ cip: ComponentInProject; component: Component }> => {
    const cip = await cips.find(id)
    if (!cip || cip.project_id !== req.project.id) throw new NotFoundError(`Component in project ${id} not found in project ${req.project.id}`)
    return { cip, component: componentOr404(library, cip.component_id) }
  }
  const pinOf = (component: Component, ref: { pin_id?: number; pin_alphanumeric_id?: string }): Pin => {
    if (ref.pin_id === undefined && ref.pin_alphanumeric_id === undefined) throw new InvalidInputError('Each pin needs pin_id or pin_alphanumeric_id')
    const pin = library.pin(component, ref)
    if (!pin) throw new InvalidInputError(`Component '${component.alphanumeric_id}' has no pin ${ref.pin_alphanumeric_id !== undefined ? `'${ref.pin_alphanumeric_id}'` : ref.pin_id}`)
    return pin
  }
  /** Refuses when a pin's current datapoint is hidden from the caller. */
  const assertSeen = async (req: FastifyRequest, no: number, cip: ComponentInProject, pin: Pin) => {
    const m = cip.pins.find((p) => p.pin_id === pin.id)
    // Refused without naming the datapoint: the caller may not learn it.
    if (m && !(await readable(req, no, m.dataPointID))) throw new ForbiddenError(`No read access to the datapoint mapped to pin '${pin.alphanumeric_id}'`, 'DATAPOINT_ACCESS_DENIED')
  }
  const view = async (req: FastifyRequest, no: number, cip: ComponentInProject, component: Component) => {
    const seen = new Map<number, string | null>()
    for (const m of cip.pins) seen.set(m.pin_id, (await readable(req, no, m.dataPointID)) ? m.dataPointID : null)
    return {
      id: cip.id, project_id: cip.project_id, nameEN: component.nameEN, display_name: cip.display_name,
      component: { id: component.id, alphanumeric_id: component.alphanumeric_id, nameDE: component.nameDE, nameEN: component.nameEN },
      pins: component.pins.map((p) => ({ ...p, dataPointID: seen.get(p.id) ?? null })),
      attributes: cip.attributes.flatMap((a) => {
        const def = component.attributeDefinitions.find((d) => d.id === a.attribute_id)
        return def ? [{ alphanumeric_id: def.alphanumeric_id, id: def.id, key: def.key, value: a.value }] : []
      }),
      tags: cip.tags,
    }
  }

  app.route({
    ...at(113),
    schema: { params: ProjectParams, response: { 200: Type.Object({ items: Type.Array(ListItem) }) } },
    handler: async (req) => ({
      items: (await cips.listByProject(req.project.id)).map((c) => ({
        id: c.id, component_id: c.component_id, project_id: c.project_id, nameEN: library.get(c.component_id)?.nameEN ?? '', display_name: c.display_name,
      })),
    }),
  })

  app.route({
    ...at(114),
    schema: { params: CipParams, response: { 200: MappedComponent } },
    handler: async (req) => {
      const { cip, component } = await mine(req, req.params.componentinproject_id)
      return view(req, 114, cip, component)
    },
  })

  app.route({
    ...at(115),
    schema: { params: CipParams, body: Type.Object({ display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), tags: Type.Optional(Tags) }, { additionalProperties: false }), response: { 200: Envelope(MappedComponent) } },
    handler: async (req, reply) => {
      const { cip, component } = await mine(req, req.params.componentinproject_id)
      return updated(reply, await view(req, 115, await cips.update(cip.id, req.body), component))
    },
  })

  app.route({
    ...at(116),
    schema: { params: CipParams, response: { 200: Envelope(MappedComponent) } },
    handler: async (req, reply) => {
      const { cip, component } = await mine(req, req.params.componentinproject_id)
      for (const m of cip.pins) {
        if (!(await readable(req, 116, m.dataPointID))) throw new ForbiddenError(`Component in project ${cip.id} maps datapoints you cannot read: only a user who reads all of them may delete it`, 'DATAPOINT_ACCESS_DENIED')
      }
      const answer = await view(req, 116, cip, component)
      await cips.remove(cip.id)
      return deleted(reply, answer)
    },
  })

  app.route({
    ...at(117),
    schema: {
      params: ProjectParams,
      body: Type.Object({ component_id: Id, display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), tags: Type.Optional(Tags) }, { additionalProperties: false }),
      response: { 201: Envelope(MappedComponent) },
    },
    handler: async (req, reply) => {
      const component = library.get(req.body.component_id)
      if (!component) throw new InvalidInputError(`Unknown component_id ${req.body.component_id}: GET /v2/components lists the library`)
      const cip = await cips.create(req.project.id, { component_id: component.id, display_name: req.body.display_name ?? component.nameEN, tags: req.body.tags ?? {} })
      return created(reply, await view(req, 117, cip, component))
    },
  })

  // 118 (POST: new mappings, 409 for a mapped pin) and 119 (PUT: set, replacing): all or nothing.
  for (const no of [118, 119] as const) {
    app.route({
      ...at(no),
      schema: { params: ProjectParams, body: PinsBody, response: { [no === 118 ? 201 : 200]: Envelope(MappedComponent) } },
      handler: async (req, reply) => {
        const { cip, component } = await mine(req, req.body.componentinproject_id)
        const rows: { pin_id: number; datapoint: number }[] = []
        for (const entry of req.body.pins) {
          const pin = pinOf(component, entry)
          if (rows.some((r) => r.pin_id === pin.id)) throw new InvalidInputError(`Pin '${pin.alphanumeric_id}' is named twice`)
          const current = cip.pins.find((p) => p.pin_id === pin.id)
          if (no === 118 && current) throw new ConflictError(`Pin '${pin.alphanumeric_id}' of component in project ${cip.id} is already mapped; change it with PUT`)
          await assertSeen(req, no, cip, pin)
          await access.require(req, no, entry.dataPointID, 'read')
          rows.push({ pin_id: pin.id, datapoint: (await catalog.datapoints.get(req.project.id, entry.dataPointID)).id })
        }
        const after = await cips.setPins(cip.id, rows)
        const answer = await view(req, no, after, component)
        return no === 118 ? created(reply, answer) : updated(reply, answer)
      },
    })
  }

  app.route({
    ...at(120),
    schema: { params: ProjectParams, querystring: Type.Object({ componentinproject_id: Id, ...PinRef }, { additionalProperties: false }), response: { 200: Envelope(MappedComponent) } },
    handler: async (req, reply) => {
      const { cip, component } = await mine(req, req.query.componentinproject_id)
      const pin = pinOf(component, req.query)
      if (!cip.pins.some((p) => p.pin_id === pin.id)) throw new NotFoundError(`Pin '${pin.alphanumeric_id}' of component in project ${cip.id} is not mapped`)
      await assertSeen(req, 120, cip, pin)
      return deleted(reply, await view(req, 120, await cips.removePins(cip.id, [pin.id]), component))
    },
  })

  // 121 (POST: new values, 409 for a filled attribute) and 122 (PUT: set, replacing).
  for (const no of [121, 122] as const) {
    app.route({
      ...at(no),
      schema: { params: ProjectParams, body: AttributesBody, response: { [no === 121 ? 201 : 200]: Envelope(MappedComponent) } },
      handler: async (req, reply) => {
        const { cip, component } = await mine(req, req.body.componentinproject_id)
        const rows: { attribute_id: number; value: string }[] = []
        for (const entry of req.body.attributes) {
          const def = attributeOf(library, component, entry)
          const value = typeof entry.value === 'string' ? entry.value : JSON.stringify(entry.value)
          const problem = valueProblem(def.value_type, value)
          if (problem) throw new InvalidInputError(`Attribute '${def.key}': ${problem}`)
          if (rows.some((r) => r.attribute_id === def.id)) throw new InvalidInputError(`Attribute '${def.key}' is named twice`)
          if (no === 121 && cip.attributes.some((a) => a.attribute_id === def.id)) throw new ConflictError(`Attribute '${def.key}' of component in project ${cip.id} is already set; change it with PUT`)
          rows.push({ attribute_id: def.id, value })
        }
        const answer = await view(req, no, await cips.setAttributes(cip.id, rows), component)
        return no === 121 ? created(reply, answer) : updated(reply, answer)
      },
    })
  }

  app.route({
    ...at(123),
    schema: { params: ProjectParams, querystring: Type.Object({ componentinproject_id: Id, ...AttrRef }, { additionalProperties: false }), response: { 200: Envelope(MappedComponent) } },
    handler: async (req, reply) => {
      const { cip, component } = await mine(req, req.query.componentinproject_id)
      const def = attributeOf(library, component, req.query)
      if (!cip.attributes.some((a) => a.attribute_id === def.id)) throw new NotFoundError(`Attribute '${def.key}' of component in project ${cip.id} is not set`)
      return deleted(reply, await view(req, 123, await cips.removeAttributes(cip.id, [def.id]), component))
    },
  })

  app.route({
    ...at(124),
    schema: {
      params: CipParams,
      querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20 })) }, { additionalProperties: false }),
      response: { 200: Type.Object({ items: Type.Array(Suggestion) }) },
    },
    handler: async (req) => {
      const { cip, component } = await mine(req, req.params.componentinproject_id)
      // Only datapoints the caller may read are ranked (and so ever named).
      const candidates = (await catalog.datapoints.listByProject(req.project.id)).filter(access.test(req, 124, 'read'))
      const visible = new Set(candidates.map((d) => d.dataPointID))
      return {
        items: component.pins.map((pin) => {
          const m = cip.pins.find((p) => p.pin_id === pin.id)
          return {
            pin_id: pin.id, alphanumeric_id: pin.alphanumeric_id, nameEN: pin.nameEN, nameDE: pin.nameDE,
            dataPointID: m && visible.has(m.dataPointID) ? m.dataPointID : null,
            candidates: suggest(pin, candidates, req.query.limit ?? 3),
          }
        }),
      }
    },
  })
}

function attributeOf(library: ComponentLibrary, component: Component, ref: { attribute_id?: number; key?: string }) {
  if (ref.attribute_id === undefined && ref.key === undefined) throw new InvalidInputError('Each attribute needs attribute_id or key')
  const def = library.attribute(component, ref)
  if (!def) throw new InvalidInputError(`Component '${component.alphanumeric_id}' has no attribute ${ref.key !== undefined ? `'${ref.key}'` : ref.attribute_id}`)
  return def
}
