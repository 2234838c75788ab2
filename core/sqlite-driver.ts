// The SQLite driver (better-sqlite3), chosen by the running Node.js (issue 15 item 11).
// better-sqlite3 12 is built with the old native API (node::ObjectWrap): on Node 24 its
// statements abort the process when garbage-collected (`Assertion failed: (env) != nullptr`
// in RemoveEnvironmentCleanupHook). Version 13 uses Node-API and ships a prebuilt binary in
// its npm package (nothing to compile), but needs Node 22 or later and crashes on Node 20.
// Both are installed (13 under the alias better-sqlite3-napi); each Node loads the one that
// works with it. Drop version 12 and this switch when Node 20 support ends.
import { createRequire } from 'node:module'
import type BetterSqlite3 from 'better-sqlite3'

const require = createRequire(import.meta.url)
const major = Number(process.versions.node.split('.')[0])

/** The better-sqlite3 Database class for this Node.js. */
export const Database: typeof BetterSqlite3 = require(major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3')
export const sqliteDriver = major >= 22 ? 'better-sqlite3 13 (Node-API)' : 'better-sqlite3 12'
