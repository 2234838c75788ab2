// The catalog facade: one object holding the repositories over one SQLite database.
import { Companies } from './companies.ts'
import { Datapoints } from './datapoints.ts'
import { MqttAccounts } from './mqtt-accounts.ts'
import { EntityTags } from './entity-tags.ts'
import { FileSpaces } from './files.ts'
import { VirtualDatapoints } from './virtual-datapoints.ts'
import { Alerts } from './alerts.ts'
import { openCatalogDb, type Db } from './db.ts'
import { Projects } from './projects.ts'
import { Roles } from './roles.ts'
import { SeriesTags } from './series-tags.ts'
import { Setpoints } from './setpoints.ts'
import { Tokens } from './tokens.ts'
import type { AdminEndpoints } from './types.ts'
import { Users } from './users.ts'

export class Catalog {
  readonly companies: Companies
  readonly users: Users
  readonly roles: Roles
  readonly projects: Projects
  readonly datapoints: Datapoints
  readonly tokens: Tokens
  readonly mqttAccounts: MqttAccounts
  readonly entityTags: EntityTags
  readonly virtualDatapoints: VirtualDatapoints
  readonly files: FileSpaces
  /** Dynamic tags of MQTT lines (Promise-returning from the start). */
  readonly seriesTags: SeriesTags
  readonly alerts: Alerts
  readonly setpoints: Setpoints

  /** @param opts.now the clock of validity checks (MQTT account expiry), ms; tests move it */
  constructor (readonly db: Db, adminEndpoints: AdminEndpoints, opts: { now?: () => number } = {}) {
    this.companies = new Companies(db)
    this.users = new Users(db)
    this.roles = new Roles(db, adminEndpoints)
    this.projects = new Projects(db, this.roles)
    this.datapoints = new Datapoints(db)
    this.tokens = new Tokens(db)
    this.mqttAccounts = new MqttAccounts(db, opts.now)
    this.entityTags = new EntityTags(db)
    this.virtualDatapoints = new VirtualDatapoints(db)
    this.files = new FileSpaces(db)
    this.seriesTags = new SeriesTags(db)
    this.alerts = new Alerts(db)
    this.setpoints = new Setpoints(db)
  }

  static open(dataDir: string | ':memory:', adminEndpoints: AdminEndpoints, opts: { now?: () => number } = {}): Catalog {
    return new Catalog(openCatalogDb(dataDir), adminEndpoints, opts)
  }

  /** Runs fn in one transaction: a failing request writes nothing (all-or-nothing). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)()
  }

  /** Creates a company with its admin role and a first user holding it (operator tool, first start). */
  createCompanyWithAdmin(name: string, admin: { email: string; password: string; firstName?: string; lastName?: string }, description = '') {
    return this.transaction(() => {
      const company = this.companies.create(name, description)
      const user = this.users.create(company.id, {
        email: admin.email, password: admin.password, firstName: admin.firstName ?? 'Admin', lastName: admin.lastName ?? name,
      })
      this.roles.assign(user.id, this.companies.adminRoleId(company.id))
      return { company, user }
    })
  }

  close(): void {
    this.db.close()
  }
}

export type { Db }
export * from './types.ts'
