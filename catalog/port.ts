// The catalog port (issue 16, item 1; DESIGN.md "ports + adapters"): what the rest of the
// platform may ask of the metadata catalog, every call returning a Promise, so a PostgreSQL
// adapter (the scaled mode's one shared catalog) can implement it without touching callers.
// The SQLite adapter (catalog/sqlite/catalog.ts) and the PostgreSQL one (catalog/postgres/catalog.ts) both must pass
// the contract suite in test/catalog/contract.ts. Nothing here names SQL or a driver.
//
// Transactions: `transaction(fn)` runs fn with a port `tx` whose calls are one unit of work:
// all of them commit when fn's promise resolves, none when it rejects (the rejection is
// passed on). Callers may await anything inside fn (the adapter keeps other work off the
// connection meanwhile), but must make their catalog calls through `tx`, never through the
// outer port (that would wait for the transaction it runs in). `tx.transaction` nests: an
// inner failure undoes only the inner writes when the outer fn catches it. A `tx` used
// after its transaction ended refuses every call.
//
// Changes (`changes`): small notifications between the processes sharing a catalog, so
// that a cache or a runtime on another node learns of a change within a second instead of
// polling: `publish(topic, payload)` reaches every `subscribe(topic, fn)` of every process on
// the catalog, the publisher's own included (SQLite: the one process; PostgreSQL: LISTEN/NOTIFY).
// Topics are short lower-case names; payloads small JSON objects (ids, not records: a
// subscriber reads what it needs). Delivery is at most once: after a lost connection every
// subscriber of every topic hears `{ reconnected: true }` and must assume anything changed.
// The adapters themselves announce, once the write is committed (catalog/changes.ts):
// `credentials` after a user's password or email changed, a user or company was deleted, or
// a token was revoked; `datapoint-tags` after a datapoint's tags changed or datapoints were
// removed (`{ datapoint: id }`, `{ project: id }` for many of a project, `{ all: true }`).
import type { AnalysisInstance, AnalysisResult, NewResult, ScheduledInstance, StaleWeek } from './analytics.ts'
import type { ComponentInProject } from './components-in-project.ts'
import type { ControlsApp, ControlsAppChange, ControlsAppFilter, ControlsAppLogEntry, HolidayCalendar, NewControlsApp, Page } from './controls-apps.ts'
import type { AlertAck, AlertEvent, AlertRecord, NewAlert, OutboxEntry, Transition } from './alerts.ts'
import type { ExchangeRate } from './exchange-rates.ts'
import type { ExportJobsPort } from './exports.ts'
import type { FileRow, QuotaLimits, QuotaRecord, Space } from './files.ts'
import type { TooLargeError } from '../core/errors.ts'
import type { TaggedObservation, TagLimits, TagRecordResult, TagRow } from './series-tags.ts'
import type { NewSetpointOperation, SetpointLogEntry, SetpointOperation, SetpointSettings, WriteBounds } from './setpoints.ts'
import type { EntityType } from './entity-tags.ts'
import type { MqttAccountChange, MqttAccountInput, MqttAccountRow, MqttAccountWithReach, ValidAccount } from './mqtt-accounts.ts'
import type { RoleInput } from './roles.ts'
import type { IssuedToken } from './tokens.ts'
import type { Company, Datapoint, Project, ProjectSettings, Role, TagAuthInput, User, UserWithHash } from './types.ts'
import type { NewUser } from './users.ts'
import type { Favorite, PlotView, PlotViewSpec } from './user-views.ts'
import type { VdpLogEntry, VdpRecord } from './virtual-datapoints.ts'
import type { DataLifecyclePort } from './lifecycle.ts'

export interface CompaniesPort {
  /** Creates the company with its `admin` role (rule 6); 409 when the name is taken. */
  create(name: string, description?: string): Promise<Company>
  get(id: number): Promise<Company>
  findByName(name: string): Promise<Company | undefined>
  list(): Promise<Company[]>
  update(id: number, fields: { name?: string; description?: string }): Promise<Company>
  /** Deletes the company with everything in it; returns its project ids. */
  delete(id: number): Promise<{ company: Company; projectIds: number[] }>
  adminRoleId(companyId: number): Promise<number>
}

export interface UsersPort {
  create(companyId: number, u: NewUser): Promise<User>
  get(id: number): Promise<User>
  /** With the password hash: for authentication only, never for a response. */
  findWithHash(id: number): Promise<UserWithHash | undefined>
  findByEmailWithHash(email: string): Promise<UserWithHash | undefined>
  listByCompany(companyId: number): Promise<User[]>
  getInCompany(id: number, companyId: number): Promise<User>
  /** A new password also revokes the user's tokens. */
  update(id: number, f: Partial<NewUser>): Promise<User>
  delete(id: number): Promise<User>
}

export interface RolesPort {
  create(companyId: number, projectId: number | null, r: RoleInput, isAdmin?: boolean): Promise<Role>
  get(id: number): Promise<Role>
  getScoped(id: number, companyId: number, projectId: number | null): Promise<Role>
  companyOf(id: number): Promise<number>
  listCompanyRoles(companyId: number): Promise<Role[]>
  listProjectRoles(projectId: number): Promise<Role[]>
  rolesOfUser(userId: number): Promise<Role[]>
  update(id: number, f: Partial<RoleInput>): Promise<Role>
  delete(id: number): Promise<Role>
  addTagAuth(roleId: number, t: TagAuthInput): Promise<Role>
  removeTagAuth(roleId: number, tagAuthId: number): Promise<Role>
  assign(userId: number, roleId: number): Promise<void>
  unassign(userId: number, roleId: number): Promise<void>
}

export interface ProjectsPort {
  /** Creates the project and its `admin` role, given to the creator (rule 6). */
  create(companyId: number, f: { name: string; description?: string }, creatorUserId: number | null): Promise<{ project: Project; role: Role }>
  get(id: number): Promise<Project>
  getInCompany(id: number, companyId: number): Promise<Project>
  settings(id: number): Promise<ProjectSettings>
  findByTopic(group: string, handle: string): Promise<ProjectSettings | undefined>
  vdpEnabled(id: number): Promise<boolean>
  setVdpEnabled(id: number, enabled: boolean): Promise<void>
  setMqtt(id: number, f: { group?: string; handle?: string; hashIdLength?: number; samplingN?: number }): Promise<ProjectSettings>
  listByCompany(companyId: number): Promise<Project[]>
  listByIds(ids: number[]): Promise<Project[]>
  /** `time_zone`: an IANA name (validated, 400 otherwise), shown by settings(). */
  update(id: number, f: { name?: string; description?: string; time_zone?: string }): Promise<Project>
  delete(id: number): Promise<Project>
}

export interface DatapointsPort {
  /** Series ids of the identifiers, creating the missing ones; all or nothing (400, 413). */
  ensure(projectId: number, identifiers: Iterable<string>): Promise<Map<string, number>>
  quota(projectId: number): Promise<{ max: number; used: number; own: boolean }>
  assertRoom(projectId: number, more: number): Promise<void>
  setQuota(projectId: number, max: number | null): Promise<void>
  defaultQuota(): Promise<number>
  setDefaultQuota(max: number): Promise<void>
  find(projectId: number, dataPointID: string): Promise<Datapoint | undefined>
  /** `find` for many identifiers at once (ingest checks a request's datapoints this way); unknown ones are absent. */
  findMany(projectId: number, dataPointIDs: readonly string[]): Promise<Map<string, Datapoint>>
  get(projectId: number, dataPointID: string): Promise<Datapoint>
  /** The datapoints whose hash id is `hashId` (Haystack ids, DESIGN.md), with their tags; two only when prefixes collide. */
  findByHash(projectId: number, hashId: string): Promise<Datapoint[]>
  countOf(projectId: number): Promise<number>
  slice(projectId: number, at: { offset: number } | { afterId: number }, limit: number): Promise<Datapoint[]>
  listByProject(projectId: number): Promise<Datapoint[]>
  remove(ids: number[]): Promise<void>
  removeSomeOfProject(projectId: number, limit: number): Promise<number[]>
  idsOfProject(projectId: number): Promise<number[]>
  setTag(datapoint: number, key: string, value: string): Promise<void>
  tagsOf(datapoint: number): Promise<Record<string, string>>
  /** A datapoint by its integer id, with its tags. */
  byId(id: number): Promise<Datapoint | undefined>
  /** The project's datapoints that carry tags, with them (the MQTT reach cache loads these). */
  taggedOfProject(projectId: number): Promise<{ id: number; dataPointID: string; tags: Record<string, string> }[]>
}

export interface TokensPort {
  issue(userId: number, ttlSeconds: number): Promise<IssuedToken>
  verify(token: string): Promise<number | undefined>
  revoke(token: string): Promise<boolean>
  /** Tokens stored for the user (expired ones not yet swept included). */
  countOfUser(userId: number): Promise<number>
}

export interface MqttAccountsPort {
  create(projectId: number, a: MqttAccountInput): Promise<MqttAccountRow>
  get(projectId: number, id: number): Promise<MqttAccountRow>
  list(projectId: number): Promise<MqttAccountRow[]>
  findValid(username: string): Promise<MqttAccountWithReach | undefined>
  update(projectId: number, id: number, f: MqttAccountChange): Promise<MqttAccountRow>
  /** Designates (or no longer) an account by username as an edge agent; false when there is none (operator tool). */
  setEdge(username: string, edge: boolean): Promise<boolean>
  delete(projectId: number, id: number): Promise<MqttAccountRow>
  deleteByUsername(username: string): Promise<boolean>
  removeExpired(): Promise<string[]>
  /** Every valid account by id: expiry and grant fingerprint (the broker's periodic check). */
  validById(): Promise<Map<number, ValidAccount>>
}

export interface EntityTagsPort {
  entity(projectId: number, type: EntityType, id: string, create: boolean): Promise<number | undefined>
  tags(type: EntityType, entity: number): Promise<Record<string, string>>
  /** The META `source` that set each tag (null: none). */
  sources(type: EntityType, entity: number): Promise<Record<string, string | null>>
  replaceTags(type: EntityType, entity: number, tags: Record<string, string>, touched: Iterable<string>, source: string | null): Promise<void>
  linkDatapoints(projectId: number, device: number, datapointIds: string[]): Promise<void>
  devicesOfProject(projectId: number): Promise<{ device_id: string; tags: Record<string, string>; datapoints: string[] }[]>
}

export interface VirtualDatapointsPort {
  create(projectId: number, v: { dataPointID: string; type: string; description: string; pins: object; parameters: object; status_code: number }, message: string): Promise<VdpRecord>
  find(projectId: number, dataPointID: string): Promise<VdpRecord | undefined>
  get(projectId: number, dataPointID: string): Promise<VdpRecord>
  byId(id: number): Promise<VdpRecord>
  listByProject(projectId: number): Promise<VdpRecord[]>
  listByStatus(codes: readonly number[]): Promise<VdpRecord[]>
  setStatus(id: number, code: number, message: string): Promise<VdpRecord>
  setDescription(id: number, description: string): Promise<VdpRecord>
  remove(id: number): Promise<void>
  logs(id: number): Promise<VdpLogEntry[]>
}

export interface ExchangeRatesPort {
  set(r: ExchangeRate): Promise<void>
  delete(base: string, quote: string, validFrom: number): Promise<boolean>
  ofPair(base: string, quote: string): Promise<{ validFrom: number; rate: number }[]>
  list(): Promise<ExchangeRate[]>
}

/** Document spaces (spec 1 "Documents"): quotas and the committed files of a space. */
export interface FilesPort {
  // Pure rules (no catalog access), synchronous: an upload's byte meter asks them per chunk.
  /** The space's key: the prefix of its objects in the storage. */
  key(s: Space): string
  /** Why an upload that has reached `total` bytes cannot fit beside `others` bytes (413 naming the limit). */
  refusal(s: Space, l: QuotaLimits, others: number, total: number): TooLargeError | undefined
  /** The 413 of a space whose number of files is at its limit. */
  filesFull(s: Space, l: QuotaLimits): TooLargeError
  limits(s: Space): Promise<QuotaLimits>
  setLimits(s: Space, l: Partial<QuotaLimits>): Promise<QuotaLimits>
  usage(s: Space): Promise<{ files: number; space_bytes: number }>
  quota(s: Space): Promise<QuotaRecord>
  get(s: Space, path: string): Promise<FileRow | undefined>
  list(s: Space, o: { page: number; perPage: number; search?: string }): Promise<{ items: FileRow[]; total: number }>
  /** Commits an upload exactly against the quota (413 naming the limit); returns the replaced object. */
  commit(s: Space, mode: 'create' | 'replace', f: Omit<FileRow, 'last_modified'>, now: number): Promise<{ replacedKey?: string }>
  delete(s: Space, path: string): Promise<string[]>
  orphans(keys: string[]): Promise<string[]>
}

/** Dynamic tags of MQTT line-protocol series, with their validity times. */
export interface SeriesTagsPort {
  record(projectId: number, observations: readonly TaggedObservation[]): Promise<TagRecordResult>
  at(series: number, time: number): Promise<Record<string, string>>
  history(series: number): Promise<TagRow[]>
  limits(): Promise<TagLimits>
  setLimits(limits: Partial<TagLimits>): Promise<void>
}

export interface AlertsPort {
  create(projectId: number, a: NewAlert): Promise<AlertRecord>
  find(id: number): Promise<AlertRecord | undefined>
  byId(id: number): Promise<AlertRecord>
  listByProject(projectId: number): Promise<AlertRecord[]>
  listByStatus(codes: readonly number[]): Promise<AlertRecord[]>
  setStatus(id: number, code: number): Promise<AlertRecord>
  remove(id: number): Promise<void>
  state(id: number): Promise<string | undefined>
  states(ids: readonly number[]): Promise<Map<number, string>>
  saveStates(states: readonly { alertId: number; state: string }[]): Promise<void>
  clearState(id: number): Promise<void>
  recordTransitions(list: readonly Transition[], payload: (alert: AlertRecord, event: AlertEvent, channel: string) => string): Promise<{ event: AlertEvent; outbox: OutboxEntry[] }[]>
  events(alertId: number, opts: { limit: number; before?: number }): Promise<AlertEvent[]>
  eventCount(alertId: number): Promise<number>
  /** The acknowledgement of the alert's current raise, if any. */
  ack(alertId: number): Promise<AlertAck | undefined>
  /**
   * Records an acknowledgement: the `ack` event, the acknowledgement and one outbox entry per
   * channel, in one transaction. Undefined when the alert is gone or already acknowledged.
   */
  acknowledge(alertId: number, ack: { actor: string; comment: string | null; level: AlertAck['level']; time: number }, channels: readonly string[],
    payload: (alert: AlertRecord, event: AlertEvent, channel: string) => string): Promise<{ event: AlertEvent; outbox: OutboxEntry[] } | undefined>
  outboxAdd(entries: readonly { alert_id: number; channel: string; payload: string }[]): Promise<OutboxEntry[]>
  outboxPending(limit: number, after?: number): Promise<OutboxEntry[]>
  outboxCount(): Promise<number>
  outboxDelete(ids: readonly number[]): Promise<void>
  outboxAttempted(id: number): Promise<void>
  outboxDropOldest(n: number): Promise<OutboxEntry[]>
}

export interface SetpointsPort {
  settings(projectId: number): Promise<SetpointSettings>
  setSettings(projectId: number, change: { enabled?: boolean; maxPriority?: number }): Promise<SetpointSettings>
  bounds(projectId: number, dataPointID: string): Promise<WriteBounds | undefined>
  /** The write bounds of every datapoint of the project that has them, by the datapoint's integer id (Haystack `writable`). */
  boundsOfProject(projectId: number): Promise<Map<number, WriteBounds>>
  setBounds(projectId: number, dataPointID: string, b: WriteBounds): Promise<WriteBounds>
  create(op: NewSetpointOperation): Promise<SetpointOperation>
  /** Compare-and-set: undefined when the operation is no longer as `current` (or a fresh read) shows it. */
  advance(reference: string, status: string, entry: SetpointLogEntry, change?: { old_value?: string | null; deadline?: number | null }, current?: SetpointOperation): Promise<SetpointOperation | undefined>
  find(reference: string): Promise<SetpointOperation | undefined>
  get(reference: string): Promise<SetpointOperation>
  listByDatapoint(projectId: number, dataPointID: string, limit?: number): Promise<SetpointOperation[]>
  listAwaiting(projectId?: number): Promise<SetpointOperation[]>
}

/** Controls apps, their logs and the holiday calendars of projects (catalog/controls-apps.ts). */
export interface ControlsAppsPort {
  /** The app and the first entry of its log, together. */
  create(app: NewControlsApp, entry: ControlsAppLogEntry): Promise<ControlsApp>
  find(id: string): Promise<ControlsApp | undefined>
  /** A project's apps matching the filter, by creation; `offset`/`limit` page them. */
  list(projectId: number, filter: ControlsAppFilter, page: { offset: number; limit: number }): Promise<Page<ControlsApp>>
  listByProject(projectId: number): Promise<ControlsApp[]>
  /** Apps whose revision the edge has not confirmed yet (deployments still pending), all projects. */
  listPending(): Promise<ControlsApp[]>
  /** Compare-and-set on the revision and status code read (`seen`), with an optional log entry; undefined when the app changed meanwhile or is gone. */
  update(id: string, seen: Pick<ControlsApp, 'revision' | 'status_code'>, change: ControlsAppChange, entry?: ControlsAppLogEntry): Promise<ControlsApp | undefined>
  /** Removes the app with its log. */
  remove(id: string): Promise<void>
  /** Appends entries; an edge entry whose (app, seq) is stored already is skipped. Returns how many were stored. */
  addLog(appId: string, entries: readonly ControlsAppLogEntry[]): Promise<number>
  /** The log, newest first. */
  logs(appId: string, page: { offset: number; limit: number }): Promise<Page<ControlsAppLogEntry>>
  holidays(projectId: number): Promise<HolidayCalendar>
  /** Replaces the project's calendar (rules validated by the caller). */
  setHolidays(projectId: number, rules: readonly unknown[], at: number): Promise<HolidayCalendar>
}

/** Favorites and plot views of a user in a project (catalog/user-views.ts); removed with the user, the project, the datapoint. */
export interface UserViewsPort {
  /** Idempotent: a favorite added twice stays one. */
  addFavorite(userId: number, datapoint: number, now: number): Promise<Favorite>
  removeFavorite(userId: number, datapoint: number): Promise<boolean>
  /** Oldest first. */
  favorites(userId: number, projectId: number): Promise<Favorite[]>
  createPlotView(userId: number, projectId: number, name: string, spec: PlotViewSpec, now: number): Promise<PlotView>
  /** The user's own plot view in the project, or undefined (another user's is not found). */
  plotView(userId: number, projectId: number, id: number): Promise<PlotView | undefined>
  plotViews(userId: number, projectId: number): Promise<PlotView[]>
  updatePlotView(id: number, change: { name?: string; spec?: PlotViewSpec }, now: number): Promise<PlotView>
  deletePlotView(id: number): Promise<boolean>
  countPlotViews(userId: number, projectId: number): Promise<number>
  countFavorites(userId: number, projectId: number): Promise<number>
}

/** A change notification's payload: a small JSON object. */
export type ChangePayload = Record<string, string | number | boolean | null>

export interface ChangesPort {
  /** Announces a change to every subscriber of `topic` in every process on the catalog. */
  publish(topic: string, payload?: ChangePayload): Promise<void>
  /** Calls fn for each announcement of `topic`; returns the unsubscribe. */
  subscribe(topic: string, fn: (payload: ChangePayload) => void): () => void
}

/** Mapped components (catalog/components-in-project.ts): ids of the library's pins and attributes. */
export interface ComponentsInProjectPort {
  create(projectId: number, c: { component_id: number; display_name: string; tags: Record<string, string> }): Promise<ComponentInProject>
  find(id: number): Promise<ComponentInProject | undefined>
  get(id: number): Promise<ComponentInProject>
  listByProject(projectId: number): Promise<ComponentInProject[]>
  update(id: number, f: { display_name?: string; tags?: Record<string, string> }): Promise<ComponentInProject>
  /** With its pins, attributes, analysis instances and results. */
  remove(id: number): Promise<void>
  /** Insert or replace; all or nothing. */
  setPins(id: number, pins: readonly { pin_id: number; datapoint: number }[]): Promise<ComponentInProject>
  removePins(id: number, pinIds: readonly number[]): Promise<ComponentInProject>
  setAttributes(id: number, attributes: readonly { attribute_id: number; value: string }[]): Promise<ComponentInProject>
  removeAttributes(id: number, attributeIds: readonly number[]): Promise<ComponentInProject>
}

/** Analysis instances, results and the weekly ledger (catalog/analytics.ts). */
export interface AnalyticsPort {
  /** 409 with the spec's text when the (function, component) pair has an instance. */
  createInstance(projectId: number, i: { componentinproject_id: number; analysisfunction_id: number; name: string; description: string; enabled: boolean; weeks_from: number }): Promise<AnalysisInstance>
  findInstance(id: number): Promise<AnalysisInstance | undefined>
  instance(id: number): Promise<AnalysisInstance>
  instancesOfProject(projectId: number): Promise<AnalysisInstance[]>
  updateInstance(id: number, f: { name?: string; description?: string; enabled?: boolean; weeks_from?: number }): Promise<AnalysisInstance>
  removeInstance(id: number): Promise<void>
  /** Stores a result; the instance keeps its newest `keep` (default DEFAULT_RESULTS_PER_INSTANCE), older ones are dropped. */
  addResult(instanceId: number, r: NewResult, keep?: number): Promise<AnalysisResult>
  findResult(instanceId: number, resultId: string): Promise<AnalysisResult | undefined>
  results(instanceId: number): Promise<AnalysisResult[]>
  latestResults(projectId: number): Promise<AnalysisResult[]>
  scheduled(): Promise<ScheduledInstance[]>
  staleWeeks(running: number, before: number): Promise<StaleWeek[]>
  /** One transaction: a new ledger row, or the takeover of a stale claim; false if another holds or ran it. */
  claimWeek(instanceId: number, weekStart: number, worker: string, running: number, staleBefore: number): Promise<boolean>
  /** One transaction: the result and the week's code, only while `worker` holds the claim. */
  completeWeek(instanceId: number, weekStart: number, worker: string, running: number, code: number, result: NewResult, keep?: number): Promise<AnalysisResult | undefined>
  weeks(instanceId: number): Promise<{ week_start: number; status_code: number; claimed_by: string; result_id: string | null }[]>
}

export interface CatalogPort {
  readonly companies: CompaniesPort
  readonly users: UsersPort
  readonly roles: RolesPort
  readonly projects: ProjectsPort
  readonly datapoints: DatapointsPort
  readonly tokens: TokensPort
  readonly mqttAccounts: MqttAccountsPort
  readonly entityTags: EntityTagsPort
  readonly virtualDatapoints: VirtualDatapointsPort
  readonly exchangeRates: ExchangeRatesPort
  readonly files: FilesPort
  readonly seriesTags: SeriesTagsPort
  readonly alerts: AlertsPort
  readonly setpoints: SetpointsPort
  /** Change notifications (see the header); a transaction's tx shares its catalog's. */
  readonly changes: ChangesPort
  readonly componentsInProject: ComponentsInProjectPort
  readonly analytics: AnalyticsPort
  readonly controlsApps: ControlsAppsPort
  readonly userViews: UserViewsPort
  readonly exportJobs: ExportJobsPort
  readonly lifecycle: DataLifecyclePort

  /** Runs fn as one all-or-nothing unit of work (see the header). */
  transaction<T>(fn: (tx: CatalogPort) => Promise<T>): Promise<T>

  /** Creates a company with its admin role and a first user holding it (operator tool, first start). */
  createCompanyWithAdmin(name: string, admin: { email: string; password: string; firstName?: string; lastName?: string }, description?: string): Promise<{ company: Company; user: User }>

  close(): Promise<void>
}
