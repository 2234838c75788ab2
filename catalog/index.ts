// The catalog as the rest of the platform sees it: `Catalog` is the port (catalog/port.ts),
// and `Catalog.open` the one place where a catalog is constructed (the SQLite adapter,
// catalog/sqlite-catalog.ts, its only adapter for now).
import type { CatalogPort } from './port.ts'
import { SqliteCatalog, type SqliteCatalogOptions } from './sqlite-catalog.ts'
import type { AdminEndpoints } from './types.ts'

export type Catalog = CatalogPort

export const Catalog = {
  /** Opens (creating and migrating if needed) the catalog of a data directory, or an in-memory one. */
  open(dataDir: string | ':memory:', adminEndpoints: AdminEndpoints, opts: SqliteCatalogOptions = {}): Catalog {
    return SqliteCatalog.open(dataDir, adminEndpoints, opts)
  },
}

export type { CatalogPort } from './port.ts'
export * from './types.ts'
