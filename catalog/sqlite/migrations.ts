// Versioned schema migrations of the catalog. Each entry runs once, in order, inside a
// transaction; PRAGMA user_version records the last applied version. Append, never edit.
// An entry is SQL text, or a function for rebuilds of tables: functions run with foreign
// keys OFF and a foreign_key_check before COMMIT (catalog/sqlite/db.ts, migrate()).
// The entries live in two files by age (migrations-1-4.ts, migrations-5-on.ts); the rebuild
// helper of function entries in rebuild.ts.
import { MIGRATIONS_1_TO_4 } from './migrations-1-4.ts'
import { MIGRATIONS_5_ON } from './migrations-5-on.ts'
import type { Migration } from './rebuild.ts'


export const migrations: readonly Migration[] = [...MIGRATIONS_1_TO_4, ...MIGRATIONS_5_ON]
