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

/** Says what the first start did, or that first-start variables given now are ignored (issue 15 item 3). */
export function reportFirstStart(boot: Bootstrapped | undefined, config: Config, logger: { info(o: object, m: string): void; warn(m: string): void }): void {
  if (!boot && config.bootstrap) {
    // A later start with the first-start variables must not ignore them silently.
    logger.warn('the installation already has companies: LINTEL_COMPANY_NAME, LINTEL_ADMIN_EMAIL and LINTEL_ADMIN_PASSWORD are ignored ' +
      '(they apply to the first start of an empty data directory only; to start over, stop the server and remove the data directory)')
  }
  if (boot?.generatedPassword) {
    // Printed once, on the terminal only: the password is not logged and not stored in clear.
    process.stdout.write(`\nFirst start: created company '${boot.company}' with admin user\n` +
      `  email:    ${boot.email}\n  password: ${boot.generatedPassword}\n` +
      'Keep this password; it is not shown again.\n\n')
  } else if (boot) {
    logger.info({ company: boot.company, email: boot.email }, 'first start: created company and admin user from configuration')
  }
}
