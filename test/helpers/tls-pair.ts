// One TLS key pair per test run (issue 16 item 8): generating a certificate for every live
// platform cost each test file seconds. tap's `before` step (test/helpers/tls-before.ts)
// generates a fresh pair into .tap/lintel-tls/ once per run; every platform of the run gets
// it through LINTEL_MQTT_CERT_FILE / LINTEL_MQTT_KEY_FILE. A file run without tap's runner
// (node --import tsx test/x.test.ts) generates the pair on first use instead; the directory
// is renamed into place whole, so concurrent test processes never see a cert without its key.
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadTlsMaterial } from '../../ingest/mqtt/tls-material.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const TLS_DIR = join(ROOT, '.tap', 'lintel-tls')
const CERT = join(TLS_DIR, 'tls', 'cert.pem')
const KEY = join(TLS_DIR, 'tls', 'key.pem')

export interface TlsEnv { LINTEL_MQTT_CERT_FILE: string; LINTEL_MQTT_KEY_FILE: string }

/** Generates a new pair into TLS_DIR, replacing the previous run's. */
export async function generateRunTls(): Promise<TlsEnv> {
  rmSync(TLS_DIR, { recursive: true, force: true })
  return ensureRunTls()
}

/** The run's pair as configuration; generated here if the before step did not run. */
export async function ensureRunTls(): Promise<TlsEnv> {
  if (!existsSync(CERT) || !existsSync(KEY)) {
    mkdirSync(dirname(TLS_DIR), { recursive: true })
    const staging = mkdtempSync(TLS_DIR + '-staging-')
    await loadTlsMaterial({ dataDir: staging })
    try {
      renameSync(staging, TLS_DIR)
    } catch {
      // Another test process was first: use its pair.
      rmSync(staging, { recursive: true, force: true })
    }
  }
  return { LINTEL_MQTT_CERT_FILE: CERT, LINTEL_MQTT_KEY_FILE: KEY }
}
