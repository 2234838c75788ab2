// First start of an empty installation: create the operator's first company and its admin,
// from configuration, or with a generated password printed once (DESIGN.md "companies").
import { randomBytes } from 'node:crypto'
import type { Catalog } from '../catalog/index.ts'
import type { Config } from './config.ts'

export interface Bootstrapped { company: string; email: string; generatedPassword?: string }

export async function bootstrapIfEmpty(catalog: Catalog, config: Config): Promise<Bootstrapped | undefined> {
  if ((await catalog.companies.list()).length > 0) return undefined
  const b = config.bootstrap
  const companyName = b?.companyName ?? 'Lintel'
  const email = b?.adminEmail ?? 'admin@lintel.local'
  const password = b?.adminPassword ?? randomBytes(15).toString('base64url')
  await catalog.createCompanyWithAdmin(companyName, { email, password })
  return { company: companyName, email, generatedPassword: b ? undefined : password }
}
