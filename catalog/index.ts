// The catalog as the rest of the platform sees it: `Catalog` is the port (catalog/port.ts);
// `openCatalog` opens the adapter the configuration chooses (LINTEL_CATALOG): SQLite
// (catalog/sqlite/catalog.ts, the embedded mode's file in the data directory) or PostgreSQL
// (catalog/postgres/catalog.ts, the scaled mode's shared catalog). `Catalog.open` opens a
// SQLite catalog synchronously (tests, tools working on a data directory).
import type { CatalogPort } from './port.ts'
import { PostgresCatalog } from './postgres/catalog.ts'
import { SqliteCatalog, type SqliteCatalogOptions } from './sqlite/catalog.ts'
import type { AdminEndpoints } from './types.ts'

export type Catalog = CatalogPort

export const Catalog = {
  /** Opens (creating and migrating if needed) the SQLite catalog of a data directory, or an in-memory one. */
  open(dataDir: string | ':memory:', adminEndpoints: AdminEndpoints, opts: SqliteCatalogOptions = {}): Catalog {
    return SqliteCatalog.open(dataDir, adminEndpoints, opts)
  },
}

/** Where the catalog lives: the part of the configuration (server/config.ts) that chooses it. */
export interface CatalogChoice { catalog: 'sqlite' | 'postgres'; dataDir: string; postgresUrl?: string }

/** Opens the chosen catalog, migrated; PostgreSQL also listening for changes. */
export async function openCatalog(choice: CatalogChoice, adminEndpoints: AdminEndpoints, opts: SqliteCatalogOptions & { onError?: (err: Error) => void } = {}): Promise<Catalog> {
  if (choice.catalog === 'postgres') {
    if (!choice.postgresUrl) throw new Error('The PostgreSQL catalog needs its URL (LINTEL_POSTGRES_URL)')
    return PostgresCatalog.open(choice.postgresUrl, adminEndpoints, opts)
  }
  return SqliteCatalog.open(choice.dataDir, adminEndpoints, opts)
}

export type { CatalogPort } from './port.ts'
export * from './types.ts'
