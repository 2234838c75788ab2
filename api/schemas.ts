// Route schemas (TypeBox): validation of input, serialization of output. Response schemas
// list fields explicitly, so a field such as a password hash can never leak into a reply.
import { Type, type TSchema } from '@sinclair/typebox'

export const Name = Type.String({ minLength: 1, maxLength: 200 })
export const Description = Type.String({ maxLength: 2000 })
export const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' })
export const Password = Type.String({ minLength: 8, maxLength: 1024 })
export const PersonName = Type.String({ minLength: 1, maxLength: 200 })
export const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })
/** Highest page number of a list: (page - 1) * per_page must stay an exact SQL OFFSET and slice index (issue 29: 1e21 and Infinity answered 500). */
export const MAX_PAGE = 1_000_000_000

export const Company = Type.Object({ id: Type.Integer(), name: Type.String(), description: Type.String() })
export const Project = Type.Object({ id: Type.Integer(), company_id: Type.Integer(), name: Type.String(), description: Type.String() })
export const User = Type.Object({
  id: Type.Integer(), company_id: Type.Integer(), email: Type.String(), firstName: Type.String(), lastName: Type.String(),
})
export const TagAuthInput = Type.Object({
  key: Type.String({ minLength: 1, maxLength: 200 }),
  value: Type.String({ minLength: 1, maxLength: 1000 }),
  read: Type.Boolean(),
  write: Type.Boolean(),
}, { additionalProperties: false })
export const TagAuth = Type.Object({ id: Type.Integer(), key: Type.String(), value: Type.String(), read: Type.Boolean(), write: Type.Boolean() })
export const Role = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  project_id: Type.Optional(Type.Integer()),
  authed_endpoints: Type.Array(Type.Integer()),
  authed_tags: Type.Array(TagAuth),
})
export const Datapoint = Type.Object({
  id: Type.Integer(), project_id: Type.Integer(), dataPointID: Type.String(), hash_id: Type.String(),
  tags: Type.Record(Type.String(), Type.String()),
})

export const Failure = Type.Object({ success: Type.Literal(false), error: Type.String(), operation: Type.String() })

/** The success envelope of create/update/delete (spec 1 "Response envelope"). */
export const Envelope = <T extends TSchema>(resource: T) =>
  Type.Object({ success: Type.Literal(true), operation: Type.String(), resource })

export const ProjectParams = Type.Object({ project_id: Id })
export const RoleParams = Type.Object({ role_id: Id })
export const ProjectRoleParams = Type.Object({ project_id: Id, role_id: Id })

export const RoleBody = Type.Object({
  name: Name,
  description: Type.Optional(Description),
  authed_endpoints: Type.Optional(Type.Array(Type.Integer(), { maxItems: 1000 })),
  authed_tags: Type.Optional(Type.Array(TagAuthInput, { maxItems: 1000 })),
}, { additionalProperties: false })
export const RoleUpdateBody = Type.Partial(RoleBody, { additionalProperties: false })
