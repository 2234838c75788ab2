// The SQLite adapter of the catalog port (catalog/port.ts), the catalog of the embedded mode.
// Promise-returning over a synchronous driver, as Signal K server's store (STYLE.md): the
// repositories in catalog/sqlite/*.ts stay synchronous better-sqlite3 code (each method runs to the
// end in one tick, so it is atomic on its own), and this module gives each of them a port
// whose methods run it behind a gate.
//
// Transactions on one connection: SQLite has one transaction per connection, and a caller
// may await inside `transaction(fn)`, so other requests' calls could otherwise land inside
// it (and be rolled back with it, or commit its half). Hence an async mutex: transactions
// run one at a time, in arrival order, and while one is open every call made outside it
// waits until it ends. Calls through its `tx` run at once. With no transaction open a call
// runs synchronously inside its async method: the hot paths (ingest resolvers, reads) pay
// one microtask and nothing else.
import type { Db } from './db.ts'
import { openCatalogDb } from './db.ts'
import { Alerts } from './alerts.ts'
import { Analytics } from './analytics.ts'
import { ComponentsInProject } from './components-in-project.ts'
import { Companies } from './companies.ts'
import { ControlsApps } from './controls-apps.ts'
import { Datapoints } from './datapoints.ts'
import { EntityTags } from './entity-tags.ts'
import { UserViews } from './user-views.ts'
import { ExportJobs } from './exports.ts'
import { DataLifecycle } from './lifecycle.ts'
import { ExchangeRates } from './exchange-rates.ts'
import { FileSpaces } from './files.ts'
import { MqttAccounts } from './mqtt-accounts.ts'
import { Projects } from './projects.ts'
import { Roles } from './roles.ts'
import { SeriesTags } from './series-tags.ts'
import { Setpoints } from './setpoints.ts'
import { Tokens } from './tokens.ts'
import { Users } from './users.ts'
import { VirtualDatapoints } from './virtual-datapoints.ts'
import type { CatalogPort, ChangePayload, ChangesPort } from '../port.ts'
import { Gate } from '../gate.ts'
import { createCompanyWithAdmin } from '../units.ts'
import { announcingChanges } from '../changes.ts'
import { LocalChanges } from './changes.ts'
import type { AdminEndpoints } from '../types.ts'

export interface SqliteCatalogOptions {
  /** Whether new projects are enabled for virtual datapoints (configuration; default true). */
  vdpEnabledByDefault?: boolean
  /** The clock of validity checks (MQTT account expiry), ms; tests move it. */
  now?: () => number
}

/** The synchronous repositories over one connection. */
interface Repositories {
  companies: Companies
  users: Users
  roles: Roles
  projects: Projects
  datapoints: Datapoints
  tokens: Tokens
  mqttAccounts: MqttAccounts
  entityTags: EntityTags
  virtualDatapoints: VirtualDatapoints
  exchangeRates: ExchangeRates
  files: FileSpaces
  seriesTags: SeriesTags
  alerts: Alerts
  setpoints: Setpoints
  componentsInProject: ComponentsInProject
  analytics: Analytics
  controlsApps: ControlsApps
  userViews: UserViews
  exportJobs: ExportJobs
  lifecycle: DataLifecycle
}

type Run = <R>(call: () => R) => Promise<R>

/** The public methods of a synchronous repository, each running through `run`. */
function promised<T extends object>(repo: T, run: Run): any {
  const out: Record<string, unknown> = {}
  for (let proto = Object.getPrototypeOf(repo); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const m = (repo as any)[name]
      if (name === 'constructor' || typeof m !== 'function' || name in out) continue
      out[name] = (...args: unknown[]) => run(() => m.apply(repo, args))
    }
  }
  return out
}

/** Methods of a repository that touch no storage, handed on as they are (synchronous). */
function pure<T extends object>(repo: T, names: (keyof T & string)[]): any {
  return Object.fromEntries(names.map((n) => [n, (repo[n] as (...a: unknown[]) => unknown).bind(repo)]))
}

type Announce = (topic: string, payload: ChangePayload) => void | Promise<void>

/** Builds the port's repositories over `repos`, each call made by `run`; announced writes (catalog/changes.ts) announce. */
function ports(repos: Repositories, run: Run, announce: Announce) {
  return announcingChanges({
    companies: promised(repos.companies, run),
    users: promised(repos.users, run),
    roles: promised(repos.roles, run),
    projects: promised(repos.projects, run),
    datapoints: promised(repos.datapoints, run),
    tokens: promised(repos.tokens, run),
    mqttAccounts: promised(repos.mqttAccounts, run),
    entityTags: promised(repos.entityTags, run),
    virtualDatapoints: promised(repos.virtualDatapoints, run),
    exchangeRates: promised(repos.exchangeRates, run),
    files: { ...promised(repos.files, run), ...pure(repos.files, ['key', 'refusal', 'filesFull']) },
    seriesTags: promised(repos.seriesTags, run),
    alerts: promised(repos.alerts, run),
    setpoints: promised(repos.setpoints, run),
    componentsInProject: promised(repos.componentsInProject, run),
    analytics: promised(repos.analytics, run),
    controlsApps: promised(repos.controlsApps, run),
    userViews: promised(repos.userViews, run),
    exportJobs: promised(repos.exportJobs, run),
    lifecycle: promised(repos.lifecycle, run),
  }, announce)
}

/** The unit-of-work operations every port offers, written against the port only. */
abstract class PortBase implements CatalogPort {
  abstract readonly companies: CatalogPort['companies']
  abstract readonly users: CatalogPort['users']
  abstract readonly roles: CatalogPort['roles']
  abstract readonly projects: CatalogPort['projects']
  abstract readonly datapoints: CatalogPort['datapoints']
  abstract readonly tokens: CatalogPort['tokens']
  abstract readonly mqttAccounts: CatalogPort['mqttAccounts']
  abstract readonly entityTags: CatalogPort['entityTags']
  abstract readonly virtualDatapoints: CatalogPort['virtualDatapoints']
  abstract readonly exchangeRates: CatalogPort['exchangeRates']
  abstract readonly files: CatalogPort['files']
  abstract readonly seriesTags: CatalogPort['seriesTags']
  abstract readonly alerts: CatalogPort['alerts']
  abstract readonly setpoints: CatalogPort['setpoints']
  abstract readonly changes: ChangesPort
  abstract readonly componentsInProject: CatalogPort['componentsInProject']
  abstract readonly analytics: CatalogPort['analytics']
  abstract readonly controlsApps: CatalogPort['controlsApps']
  abstract readonly userViews: CatalogPort['userViews']
  abstract readonly exportJobs: CatalogPort['exportJobs']
  abstract readonly lifecycle: CatalogPort['lifecycle']
  abstract transaction<T>(fn: (tx: CatalogPort) => Promise<T>): Promise<T>
  abstract close(): Promise<void>

  createCompanyWithAdmin(name: string, admin: { email: string; password: string; firstName?: string; lastName?: string }, description = '') {
    return createCompanyWithAdmin(this, name, admin, description)
  }
}

/** The port handed to a transaction's fn: runs at once, savepoints for nesting, dead after the end. */
class TxPort extends PortBase {
  readonly companies; readonly users; readonly roles; readonly projects; readonly datapoints
  readonly tokens; readonly mqttAccounts; readonly entityTags; readonly virtualDatapoints; readonly exchangeRates
  readonly files; readonly seriesTags; readonly alerts; readonly setpoints; readonly componentsInProject; readonly analytics; readonly controlsApps; readonly userViews; readonly exportJobs; readonly lifecycle
  private ended = false

  /** `pending`: announcements held back until the outermost transaction commits. */
  constructor (private readonly db: Db, private readonly repos: Repositories, private readonly depth: number,
    readonly changes: ChangesPort, private readonly pending: [string, ChangePayload][]) {
    super()
    const run: Run = async (call) => {
      if (this.ended) throw new Error('Catalog transaction already ended: its tx cannot be used any more')
      return call()
    }
    const p = ports(repos, run, (topic, payload) => { pending.push([topic, payload]) })
    this.companies = p.companies; this.users = p.users; this.roles = p.roles; this.projects = p.projects
    this.datapoints = p.datapoints; this.tokens = p.tokens; this.mqttAccounts = p.mqttAccounts
    this.entityTags = p.entityTags; this.virtualDatapoints = p.virtualDatapoints; this.exchangeRates = p.exchangeRates
    this.files = p.files; this.seriesTags = p.seriesTags; this.alerts = p.alerts; this.setpoints = p.setpoints
    this.componentsInProject = p.componentsInProject; this.analytics = p.analytics; this.controlsApps = p.controlsApps; this.userViews = p.userViews; this.exportJobs = p.exportJobs; this.lifecycle = p.lifecycle
  }

  end(): void { this.ended = true }

  /** A savepoint inside the open transaction; nested units of one tx are awaited one at a time. */
  async transaction<T>(fn: (tx: CatalogPort) => Promise<T>): Promise<T> {
    if (this.ended) throw new Error('Catalog transaction already ended: its tx cannot be used any more')
    const name = `lintel_sp${this.depth}`
    this.db.exec(`SAVEPOINT ${name}`)
    const inner = new TxPort(this.db, this.repos, this.depth + 1, this.changes, this.pending)
    try {
      const result = await fn(inner)
      this.db.exec(`RELEASE ${name}`)
      return result
    } catch (err) {
      this.db.exec(`ROLLBACK TO ${name}`)
      this.db.exec(`RELEASE ${name}`)
      throw err
    } finally {
      inner.end()
    }
  }

  async close(): Promise<void> {
    throw new Error('A catalog transaction cannot close the catalog')
  }
}

export class SqliteCatalog extends PortBase {
  readonly companies; readonly users; readonly roles; readonly projects; readonly datapoints
  readonly tokens; readonly mqttAccounts; readonly entityTags; readonly virtualDatapoints; readonly exchangeRates
  readonly files; readonly seriesTags; readonly alerts; readonly setpoints; readonly componentsInProject; readonly analytics; readonly controlsApps; readonly userViews; readonly exportJobs; readonly lifecycle
  private readonly repos: Repositories
  private readonly gate = new Gate()
  readonly changes = new LocalChanges()

  /** `db` is the adapter's own connection: nothing outside catalog/ (and migration tests) sees it. */
  constructor (private readonly db: Db, adminEndpoints: AdminEndpoints, opts: SqliteCatalogOptions = {}) {
    super()
    const roles = new Roles(db, adminEndpoints)
    const projects = new Projects(db, roles)
    projects.vdpEnabledByDefault = opts.vdpEnabledByDefault ?? true
    this.repos = {
      companies: new Companies(db), users: new Users(db), roles, projects, datapoints: new Datapoints(db),
      tokens: new Tokens(db), mqttAccounts: new MqttAccounts(db, opts.now), entityTags: new EntityTags(db),
      virtualDatapoints: new VirtualDatapoints(db), exchangeRates: new ExchangeRates(db),
      files: new FileSpaces(db), seriesTags: new SeriesTags(db), alerts: new Alerts(db), setpoints: new Setpoints(db),
      componentsInProject: new ComponentsInProject(db), analytics: new Analytics(db, opts.now), controlsApps: new ControlsApps(db), userViews: new UserViews(db), exportJobs: new ExportJobs(db), lifecycle: new DataLifecycle(db),
    }
    const run: Run = async (call) => {
      if (this.gate.held) await this.gate.idle()
      return call()
    }
    const p = ports(this.repos, run, (topic, payload) => this.changes.publish(topic, payload))
    this.companies = p.companies; this.users = p.users; this.roles = p.roles; this.projects = p.projects
    this.datapoints = p.datapoints; this.tokens = p.tokens; this.mqttAccounts = p.mqttAccounts
    this.entityTags = p.entityTags; this.virtualDatapoints = p.virtualDatapoints; this.exchangeRates = p.exchangeRates
    this.files = p.files; this.seriesTags = p.seriesTags; this.alerts = p.alerts; this.setpoints = p.setpoints
    this.componentsInProject = p.componentsInProject; this.analytics = p.analytics; this.controlsApps = p.controlsApps; this.userViews = p.userViews; this.exportJobs = p.exportJobs; this.lifecycle = p.lifecycle
  }

  /** @internal see sqliteConnectionForTests */
  get connection(): Db { return this.db }

  static open(dataDir: string | ':memory:', adminEndpoints: AdminEndpoints, opts: SqliteCatalogOptions = {}): SqliteCatalog {
    return new SqliteCatalog(openCatalogDb(dataDir), adminEndpoints, opts)
  }

  async transaction<T>(fn: (tx: CatalogPort) => Promise<T>): Promise<T> {
    const release = await this.gate.acquire()
    const pending: [string, ChangePayload][] = []
    const tx = new TxPort(this.db, this.repos, 0, this.changes, pending)
    try {
      // IMMEDIATE: the write lock is taken now, so another process on the same file cannot
      // make this transaction fail at its first write (busy_timeout waits for it).
      this.db.exec('BEGIN IMMEDIATE')
      let result: T
      try {
        result = await fn(tx)
      } catch (err) {
        if (this.db.inTransaction) this.db.exec('ROLLBACK')
        throw err
      }
      this.db.exec('COMMIT')
      for (const [topic, payload] of pending) await this.changes.publish(topic, payload)
      return result
    } finally {
      tx.end()
      release()
    }
  }

  async close(): Promise<void> {
    await this.gate.idle()
    this.db.close()
  }
}

/**
 * The adapter's own connection, for tests of its storage only (rows an older version wrote,
 * migrations): test/ingest/mqtt-session.test.ts. Nothing else may use it (issue 16, item 1).
 */
export function sqliteConnectionForTests(catalog: CatalogPort): Db {
  if (!(catalog instanceof SqliteCatalog)) throw new Error('not the SQLite catalog adapter')
  return catalog.connection
}
