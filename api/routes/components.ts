// The component library (spec 3 "Component models"; issue 12 item 1), endpoints 110-112: the
// abstract components with their pin placeholders and attribute definitions. The library is
// global reference data (data/components, the same for every company), so the endpoints have
// the User scope: any authenticated user reads it, no grant needed, nothing of a company shown.
import type { FastifyPluginAsync } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { NotFoundError } from '../../core/errors.ts'
import type { Component, ComponentLibrary } from '../../engine/analytics/library.ts'
import type { RouteContext } from '../route-context.ts'
import { at } from '../registry.ts'
import { Id } from '../schemas.ts'

export const AbstractComponent = Type.Object({ id: Type.Integer(), alphanumeric_id: Type.String(), nameDE: Type.String(), nameEN: Type.String() })
export const PinAttribute = Type.Object({ id: Type.Integer(), key: Type.String(), probability: Type.Number(), value: Type.String() })
export const PinPlaceholder = Type.Object({
  id: Type.Integer(), alphanumeric_id: Type.String(), location: Type.String(), nameDE: Type.String(), nameEN: Type.String(),
  pin_attributes: Type.Array(PinAttribute),
})
export const AttributeDefinition = Type.Object({
  id: Type.Integer(), alphanumeric_id: Type.String(), key: Type.String(), nameDE: Type.String(), nameEN: Type.String(),
  value_type: Type.String(), unit: Type.Optional(Type.String()), default: Type.Optional(Type.String()),
})
const Params = Type.Object({ component_id: Id })

/** The component or the 404 every route of a component answers. */
export function componentOr404(library: ComponentLibrary, id: number): Component {
  const c = library.get(id)
  if (!c) throw new NotFoundError(`Component ${id} not found`)
  return c
}

export const componentRoutes: FastifyPluginAsync<RouteContext & { library: ComponentLibrary }> = async (base, { library }) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()

  app.route({
    ...at(110),
    schema: { response: { 200: Type.Array(AbstractComponent) } },
    handler: async () => [...library.components],
  })

  app.route({
    ...at(111),
    schema: { params: Params, response: { 200: Type.Array(PinPlaceholder) } },
    handler: async (req) => componentOr404(library, req.params.component_id).pins,
  })

  app.route({
    ...at(112),
    schema: { params: Params, response: { 200: Type.Array(AttributeDefinition) } },
    handler: async (req) => componentOr404(library, req.params.component_id).attributeDefinitions,
  })
}
