import { ConflictError } from '../core/errors.ts'


export interface NewUser { email: string; firstName: string; lastName: string; password: string }

/** The 409 of an email in use (both adapters). */
export const emailTaken = (email: string) => new ConflictError(`A user with email '${email}' already exists`)
