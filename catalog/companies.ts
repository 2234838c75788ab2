// Companies are created, renamed and deleted by the operator only (server/cli.ts), never over HTTP.
import { ConflictError } from '../core/errors.ts'

/** The 409 of a company name in use (both adapters). */
export const companyTaken = (name: string) => new ConflictError(`Company '${name}' already exists`)
