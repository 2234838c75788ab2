// The response envelope of spec 1: GETs return the object itself; create, update and delete
// return {success, operation, resource}; failures {success: false, error, operation}.
import type { FastifyReply } from 'fastify'

export type Operation = 'create' | 'update' | 'delete' | ''

export function created<T>(reply: FastifyReply, resource: T) {
  return reply.code(201).send({ success: true, operation: 'create', resource })
}
export function updated<T>(reply: FastifyReply, resource: T) {
  return reply.code(200).send({ success: true, operation: 'update', resource })
}
export function deleted<T>(reply: FastifyReply, resource: T) {
  return reply.code(200).send({ success: true, operation: 'delete', resource })
}
export function done<T>(reply: FastifyReply, resource: T) {
  return reply.code(200).send({ success: true, operation: '', resource })
}

/** The operation a failed request attempted, by method; routes may override it in their config. */
export function operationOf(method: string, configured?: Operation): Operation {
  if (configured !== undefined) return configured
  switch (method) {
    case 'POST': return 'create'
    case 'PUT': return 'update'
    case 'DELETE': return 'delete'
    default: return ''
  }
}
