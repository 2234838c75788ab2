// Units of work of the catalog port written against the port only, shared by its adapters.
import type { CatalogPort } from './port.ts'

/** A company with its admin role and a first user holding it, in one transaction. */
export function createCompanyWithAdmin(port: CatalogPort, name: string, admin: { email: string; password: string; firstName?: string; lastName?: string }, description = '') {
  return port.transaction(async (tx) => {
    const company = await tx.companies.create(name, description)
    const user = await tx.users.create(company.id, {
      email: admin.email, password: admin.password, firstName: admin.firstName ?? 'Admin', lastName: admin.lastName ?? name,
    })
    await tx.roles.assign(user.id, await tx.companies.adminRoleId(company.id))
    return { company, user }
  })
}
