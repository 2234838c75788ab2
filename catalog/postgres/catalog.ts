// The PostgreSQL adapter of the catalog port (catalog/port.ts): the scaled mode's one shared
// catalog, so API, broker and worker processes on several machines share no disk
// (issue 17). node-postgres with a pool; the repositories in catalog/postgres/ run each call
// on any free connection, or inside a transaction on its connection.
//
// Transactions: `transaction(fn)` takes a connection, BEGIN … COMMIT (ROLLBACK when fn
// rejects); `tx.transaction` nests as a SAVEPOINT; a tx used after its end refuses. As in the
// SQLite adapter, the transactions of one process run one at a time in arrival order (the
// contract); calls outside them do not wait, since PostgreSQL isolates them (READ COMMITTED:
// they never see uncommitted writes). Between processes PostgreSQL's locks order the writers.
// Change notifications: LISTEN/NOTIFY (catalog/postgres/changes.ts).
import pg from 'pg'
import { announcingChanges } from '../changes.ts'
import { userViews } from './user-views.ts'
import { exportJobs } from './exports.ts'
import { dataLifecycle } from './lifecycle.ts'
import { Gate } from '../gate.ts'
import { createCompanyWithAdmin } from '../units.ts'
import type { CatalogPort, ChangesPort } from '../port.ts'
import type { AdminEndpoints } from '../types.ts'
import { PgChanges } from './changes.ts'
import { datapoints, entityTags, seriesTags } from './datapoints.ts'
import { exchangeRates } from './exchange-rates.ts'
import { files } from './files.ts'
import { alerts, setpoints, virtualDatapoints } from './runtime-state.ts'
import { analytics, componentsInProject } from './analysis.ts'
import { controlsApps } from './controls-apps.ts'
import { migrate } from './migrations.ts'
import { companies, mqttAccounts, projects, roles, tokens, users } from './org.ts'
import { ClientSql, PoolSql, types, type Sql } from './sql.ts'

export interface PostgresCatalogOptions {
  /** Whether new projects are enabled for virtual datapoints (configuration; default true). */
  vdpEnabledByDefault?: boolean
  /** The clock of validity checks (MQTT account expiry), ms; tests move it. */
  now?: () => number
  /** Connections of the pool (default 10). */
  poolSize?: number
  /** Problems of the change listener's connection (it reconnects by itself). */
  onError?: (err: Error) => void
}

interface Context { adminEndpoints: AdminEndpoints; opts: PostgresCatalogOptions; changes: PgChanges }

/** The repositories over `sql`, announced writes (catalog/changes.ts) announcing through `changes`. */
function repositories(sql: Sql, ctx: Context, changes: ChangesPort) {
  const now = ctx.opts.now
  return announcingChanges({
    companies: companies(sql), users: users(sql), roles: roles(sql, ctx.adminEndpoints),
    projects: projects(sql, ctx.adminEndpoints, ctx.opts.vdpEnabledByDefault ?? true), datapoints: datapoints(sql),
    tokens: tokens(sql), mqttAccounts: mqttAccounts(sql, now), entityTags: entityTags(sql),
    virtualDatapoints: virtualDatapoints(sql), exchangeRates: exchangeRates(sql), files: files(sql),
    seriesTags: seriesTags(sql), alerts: alerts(sql), setpoints: setpoints(sql),
    componentsInProject: componentsInProject(sql), analytics: analytics(sql, now), controlsApps: controlsApps(sql), userViews: userViews(sql), exportJobs: exportJobs(sql), lifecycle: dataLifecycle(sql),
  }, (topic, payload) => changes.publish(topic, payload))
}

type Repos = ReturnType<typeof repositories>

abstract class PgPort implements CatalogPort {
  readonly companies; readonly users; readonly roles; readonly projects; readonly datapoints
  readonly tokens; readonly mqttAccounts; readonly entityTags; readonly virtualDatapoints; readonly exchangeRates
  readonly files; readonly seriesTags; readonly alerts; readonly setpoints; readonly componentsInProject; readonly analytics; readonly controlsApps; readonly userViews; readonly exportJobs; readonly lifecycle

  constructor (protected readonly sql: Sql, protected readonly ctx: Context, readonly changes: ChangesPort) {
    const r: Repos = repositories(sql, ctx, changes)
    this.companies = r.companies; this.users = r.users; this.roles = r.roles; this.projects = r.projects
    this.datapoints = r.datapoints; this.tokens = r.tokens; this.mqttAccounts = r.mqttAccounts
    this.entityTags = r.entityTags; this.virtualDatapoints = r.virtualDatapoints; this.exchangeRates = r.exchangeRates
    this.files = r.files; this.seriesTags = r.seriesTags; this.alerts = r.alerts; this.setpoints = r.setpoints
    this.componentsInProject = r.componentsInProject; this.analytics = r.analytics; this.controlsApps = r.controlsApps; this.userViews = r.userViews; this.exportJobs = r.exportJobs; this.lifecycle = r.lifecycle
  }

  abstract transaction<T>(fn: (tx: CatalogPort) => Promise<T>): Promise<T>
  abstract close(): Promise<void>

  createCompanyWithAdmin(name: string, admin: { email: string; password: string; firstName?: string; lastName?: string }, description = '') {
    return createCompanyWithAdmin(this, name, admin, description)
  }

}

/** The port of an open transaction: its connection, savepoints for nesting, dead after the end. */
class PgTx extends PgPort {
  constructor (sql: ClientSql, ctx: Context) {
    super(sql, ctx, ctx.changes.within(sql))
  }

  transaction<T>(fn: (tx: CatalogPort) => Promise<T>): Promise<T> {
    return this.sql.atomic((inner) => fn(new PgTx(inner as ClientSql, this.ctx)))
  }

  async close(): Promise<void> {
    throw new Error('A catalog transaction cannot close the catalog')
  }
}

export class PostgresCatalog extends PgPort {
  private readonly gate = new Gate()

  private constructor (private readonly pool: pg.Pool, ctx: Context) {
    super(new PoolSql(pool), ctx, ctx.changes)
  }

  /** Connects, applies pending migrations, starts listening for changes. */
  static async open(url: string, adminEndpoints: AdminEndpoints, opts: PostgresCatalogOptions = {}): Promise<PostgresCatalog> {
    const config: pg.PoolConfig = { connectionString: url, types, max: opts.poolSize ?? 10, application_name: 'lintel' }
    const pool = new pg.Pool(config)
    pool.on('error', (err) => opts.onError?.(err)) // an idle connection dropped: the pool replaces it
    try {
      await migrate(pool)
      const changes = new PgChanges(config, new PoolSql(pool), opts.onError)
      await changes.ready
      return new PostgresCatalog(pool, { adminEndpoints, opts, changes })
    } catch (err) {
      await pool.end().catch(() => {})
      throw err
    }
  }

  async transaction<T>(fn: (tx: CatalogPort) => Promise<T>): Promise<T> {
    const release = await this.gate.acquire()
    try {
      return await this.sql.atomic((sql) => fn(new PgTx(sql as ClientSql, this.ctx)))
    } finally {
      release()
    }
  }

  async close(): Promise<void> {
    await this.gate.idle()
    await this.ctx.changes.close()
    await this.pool.end()
  }
}
