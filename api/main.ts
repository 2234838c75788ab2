// The composition root (DESIGN.md): reads configuration, opens the catalog and the store
// chosen by it, builds the API and listens. `npm start` runs this file.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { Catalog } from '../catalog/index.ts'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'
import { buildApp } from './app.ts'
import { bootstrapIfEmpty } from './bootstrap.ts'
import { ConfigError, loadConfig, type Config } from './config.ts'
import { adminEndpoints } from './registry.ts'

export async function start(config: Config) {
  const logger = pino({ level: config.logLevel, redact: ['req.headers.authorization', '*.password'] })
  const catalog = Catalog.open(config.dataDir, adminEndpoints)
  const boot = bootstrapIfEmpty(catalog, config)
  if (boot?.generatedPassword) {
    // Printed once, on the terminal only: the password is not logged and not stored in clear.
    process.stdout.write(`\nFirst start: created company '${boot.company}' with admin user\n` +
      `  email:    ${boot.email}\n  password: ${boot.generatedPassword}\n` +
      'Keep this password; it is not shown again.\n\n')
  } else if (boot) {
    logger.info({ company: boot.company, email: boot.email }, 'first start: created company and admin user from configuration')
  }
  // Aborting CSV imports spool the upload here, beside the data rather than in a small /tmp.
  const spoolDir = join(config.dataDir, 'spool')
  mkdirSync(spoolDir, { recursive: true })
  const store = await openSqliteStore({ dir: join(config.dataDir, 'timeseries'), logger })
  const app = await buildApp({ catalog, store, logger, tokenTtlSeconds: config.tokenTtlSeconds, uploadLimit: config.uploadLimit, ingestBodyLimit: config.ingestBodyLimit, spoolDir })
  const address = await app.listen({ host: config.host, port: config.httpPort })
  process.stdout.write(`lintel listening on ${address}\n`)
  const stop = async () => {
    await app.close()
    await store.close()
    catalog.close()
  }
  return { app, catalog, stop }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let config: Config
  try {
    config = loadConfig()
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(err.message + '\n')
    process.exit(2)
  }
  const platform = await start(config)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => { platform.stop().then(() => process.exit(0), () => process.exit(1)) })
  }
}
