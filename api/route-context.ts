// What every route plugin receives from buildApp (api/app.ts): the catalog, the store, the
// ingest path and the hooks of the composition root. A module of its own, so that the route
// plugins and app.ts do not import each other (issue 15, item 10).
import type { Catalog } from '../catalog/index.ts'
import type { Ingest } from '../engine/ingest-port.ts'
import type { TimeseriesStore } from '../engine/store/port.ts'
import type { Authenticator } from './authenticate.ts'
export interface RouteContext {
  catalog: Catalog
  /** Authentication; routes use it to confirm a current password (PUT /v2/user). */
  auth: Authenticator
  store: TimeseriesStore
  ingest: Ingest
  /** Where CSV imports go (default `ingest`): its own port so the operator's metrics count it apart. */
  importIngest?: Ingest
  tokenTtlSeconds: number
  onProjectDeleted?: (projectId: number) => void
  onProjectDeleting?: (projectId: number) => Promise<void> | void
  metrics?: (projectIds: readonly number[]) => Record<string, number>
}
