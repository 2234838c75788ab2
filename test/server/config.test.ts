import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../../server/config.ts'

t.test('defaults', async (t) => {
  const c = loadConfig({})
  t.same([...c.roles], ['api', 'broker', 'worker'])
  t.match(c, { store: 'embedded', log: 'memory', nodeId: /^node-\d+$/ })
  t.same({ ...c, roles: undefined, store: undefined, log: undefined, nodeId: undefined, questdb: undefined, kafkaBrokers: undefined, redisUrl: undefined }, {
    roles: undefined, store: undefined, log: undefined, nodeId: undefined, questdb: undefined, kafkaBrokers: undefined, redisUrl: undefined,
    questdbTable: 'obs', kafkaTopic: 'lintel.observations', catalog: 'sqlite', postgresUrl: undefined,
    dataDir: './var', catalogDir: './var', host: '127.0.0.1', httpPort: 8080, logLevel: 'info', tokenTtlSeconds: 3600, setpointTimeoutMs: 10_000, controlsDeployTimeoutMs: 60_000,
    ingestBodyLimit: 64 * 1024 * 1024, uploadLimit: 4096 * 1024 * 1024, httpTimeouts: { headersMs: 10_000, bodyMs: 60_000 }, liveLimits: { maxQueueBytes: 1024 * 1024, maxFill: 100_000 },
    vdpDefaultEnabled: true, webhookAllow: [], vdpLatenessSeconds: 3600,
    mqtt: { tlsPort: 8884, wsPort: 9001, tcpPort: undefined, certFile: undefined, keyFile: undefined, maxPacketBytes: 1024 * 1024,
      preAuth: { packetBytes: 64 * 1024, maxConnections: 500, maxPerAddress: 50, timeoutMs: 10_000 } },
    blobs: { kind: 'fs', dir: 'var/files', host: '127.0.0.1', port: 8081, publicUrl: undefined },
    uploads: { perCompany: 4, perNode: 8, tempBytes: 8 * 1024 ** 3, minBytesPerSecond: 16 * 1024, rateWindowMs: 30_000 },
    alertLimits: { outboxPerCompany: 10_000, perDatapoint: 100, notifyIntervalMs: 60_000 },
    analysisMaxResults: 1000,
  })
})

t.test('bounds of running uploads (issue 29): settings and their checks', async (t) => {
  t.same(loadConfig({
    LINTEL_UPLOADS_PER_COMPANY: '2', LINTEL_UPLOADS_PER_NODE: '3', LINTEL_UPLOAD_TEMP_MB: '100', LINTEL_UPLOAD_MIN_RATE_KB: '0', LINTEL_UPLOAD_RATE_WINDOW_S: '5',
  }).uploads, { perCompany: 2, perNode: 3, tempBytes: 100 * 1024 ** 2, minBytesPerSecond: 0, rateWindowMs: 5000 })
  t.throws(() => loadConfig({ LINTEL_UPLOADS_PER_COMPANY: '0' }), { message: /LINTEL_UPLOADS_PER_COMPANY must be an integer from 1 to 10000, got '0'/ })
  t.throws(() => loadConfig({ LINTEL_UPLOAD_TEMP_MB: 'lots' }), { message: /LINTEL_UPLOAD_TEMP_MB must be an integer from 1 to/ })
  t.throws(() => loadConfig({ LINTEL_UPLOAD_RATE_WINDOW_S: '0' }), { message: /LINTEL_UPLOAD_RATE_WINDOW_S must be an integer from 1 to 3600/ })
  t.equal(loadConfig({ LINTEL_ALERT_OUTBOX_PER_COMPANY: '50' }).alertLimits.outboxPerCompany, 50)
  t.throws(() => loadConfig({ LINTEL_ALERT_OUTBOX_PER_COMPANY: '0' }), { message: /LINTEL_ALERT_OUTBOX_PER_COMPANY must be an integer from 1 to 100000/ })
  t.equal(loadConfig({ LINTEL_ALERT_NOTIFY_INTERVAL_S: '0' }).alertLimits.notifyIntervalMs, 0, '0: every raise and reset is notified')
  t.throws(() => loadConfig({ LINTEL_ALERT_NOTIFY_INTERVAL_S: '-1' }), { message: /LINTEL_ALERT_NOTIFY_INTERVAL_S must be an integer from 0 to 86400, got '-1'/ })
  t.equal(loadConfig({ LINTEL_ANALYSIS_MAX_RESULTS: '52' }).analysisMaxResults, 52)
  t.throws(() => loadConfig({ LINTEL_ANALYSIS_MAX_RESULTS: '0' }), { message: /LINTEL_ANALYSIS_MAX_RESULTS must be an integer from 1 to 1000000, got '0'/ })
})

t.test('every wrong value is named with what was expected', async (t) => {
  t.throws(() => loadConfig({ LINTEL_HTTP_PORT: 'eighty' }), { message: /LINTEL_HTTP_PORT must be an integer from 0 to 65535, got 'eighty'/ })
  t.throws(() => loadConfig({ LINTEL_HTTP_PORT: '70000' }), { message: /LINTEL_HTTP_PORT must be an integer from 0 to 65535, got '70000'/ })
  t.throws(() => loadConfig({ LINTEL_LOG_LEVEL: 'loud', LINTEL_HOST: ' ' }), { message: /LINTEL_HOST must not be empty\n {2}- LINTEL_LOG_LEVEL must be one of/ })
  t.throws(() => loadConfig({ LINTEL_COMPANY_NAME: 'Acme' }), { message: /must be given together/ })
  t.throws(() => loadConfig({ LINTEL_COMPANY_NAME: 'Acme', LINTEL_ADMIN_EMAIL: 'nope', LINTEL_ADMIN_PASSWORD: 'short' }),
    { message: /LINTEL_ADMIN_EMAIL must be an email address, got 'nope'\n {2}- LINTEL_ADMIN_PASSWORD must be at least 8 characters/ })
})

t.test('pre-login MQTT bounds (issue 29 item 2): settings, ranges, and no more than the after-login packet size', async (t) => {
  t.same(loadConfig({ LINTEL_MQTT_PREAUTH_PACKET_KB: '16', LINTEL_MQTT_PREAUTH_MAX: '100', LINTEL_MQTT_PREAUTH_PER_ADDRESS: '5', LINTEL_MQTT_PREAUTH_SECONDS: '3' }).mqtt.preAuth,
    { packetBytes: 16 * 1024, maxConnections: 100, maxPerAddress: 5, timeoutMs: 3000 })
  t.equal(loadConfig({ LINTEL_MQTT_MAX_PACKET_KB: '32' }).mqtt.preAuth.packetBytes, 32 * 1024, 'the default never exceeds the after-login limit')
  t.throws(() => loadConfig({ LINTEL_MQTT_MAX_PACKET_KB: '32', LINTEL_MQTT_PREAUTH_PACKET_KB: '64' }), { message: /LINTEL_MQTT_PREAUTH_PACKET_KB \(64\) must not exceed LINTEL_MQTT_MAX_PACKET_KB \(32\)/ })
  t.throws(() => loadConfig({ LINTEL_MQTT_PREAUTH_SECONDS: '0' }), { message: /LINTEL_MQTT_PREAUTH_SECONDS must be an integer from 1 to 3600, got '0'/ })
  t.throws(() => loadConfig({ LINTEL_MQTT_PREAUTH_MAX: 'many' }), { message: /LINTEL_MQTT_PREAUTH_MAX must be an integer from 1 to 1000000, got 'many'/ })
})

t.test('roles and scaled-mode adapters: wrong combinations are refused at start', async (t) => {
  t.throws(() => loadConfig({ LINTEL_ROLES: 'api,cook' }), { message: /LINTEL_ROLES must be a comma-separated list of api, broker, worker, got 'api,cook'/ })
  t.throws(() => loadConfig({ LINTEL_STORE: 'mongo' }), { message: /LINTEL_STORE must be one of embedded, questdb, got 'mongo'/ })
  t.throws(() => loadConfig({ LINTEL_STORE: 'questdb' }), { message: /LINTEL_STORE=questdb needs LINTEL_QUESTDB/ })
  t.throws(() => loadConfig({ LINTEL_CATALOG: 'mysql' }), { message: /LINTEL_CATALOG must be one of sqlite, postgres, got 'mysql'/ })
  t.throws(() => loadConfig({ LINTEL_CATALOG: 'postgres' }), { message: /LINTEL_CATALOG=postgres needs LINTEL_POSTGRES_URL/ })
  t.throws(() => loadConfig({ LINTEL_CATALOG: 'postgres', LINTEL_POSTGRES_URL: 'mysql://u:secret@h/db' }),
    { message: /LINTEL_POSTGRES_URL must be a postgres:\/\/ or postgresql:\/\/ URL, got 'mysql:\/\/u:\*\*\*@h\/db'/ }, 'the password is not shown')
  t.throws(() => loadConfig({ LINTEL_POSTGRES_URL: 'postgres://h/db' }), { message: /LINTEL_POSTGRES_URL is set but LINTEL_CATALOG is not postgres/ })
  t.match(loadConfig({ LINTEL_CATALOG: 'postgres', LINTEL_POSTGRES_URL: 'postgresql://u@h:5432/db' }), { catalog: 'postgres', postgresUrl: 'postgresql://u@h:5432/db' })
  t.equal(loadConfig({}).catalog, 'sqlite')
  t.throws(() => loadConfig({ LINTEL_LOG: 'kafka' }), { message: /LINTEL_LOG=kafka needs LINTEL_KAFKA_BROKERS/ })
  t.throws(() => loadConfig({ LINTEL_ROLES: 'broker' }), { message: /set LINTEL_LOG=kafka[\s\S]*set LINTEL_STORE=questdb/ })
  t.throws(() => loadConfig({ LINTEL_REDIS_URL: 'localhost:6379' }), { message: /LINTEL_REDIS_URL must be a redis:\/\/ URL/ })
  const c = loadConfig({ LINTEL_ROLES: 'broker', LINTEL_LOG: 'kafka', LINTEL_KAFKA_BROKERS: '127.0.0.1:19092', LINTEL_STORE: 'questdb', LINTEL_QUESTDB: 'http://127.0.0.1:19000', LINTEL_REDIS_URL: 'redis://127.0.0.1:16379', LINTEL_NODE_ID: 'b1' })
  t.same([...c.roles], ['broker'])
  t.match(c, { store: 'questdb', log: 'kafka', nodeId: 'b1', redisUrl: 'redis://127.0.0.1:16379' })
})

t.test('a config file, overridden by the environment', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 'lintel.json')
  writeFileSync(file, JSON.stringify({ LINTEL_HTTP_PORT: 9090, LINTEL_DATA_DIR: '/srv/lintel', LINTEL_HOST: '0.0.0.0' }))
  const c = loadConfig({ LINTEL_CONFIG: file, LINTEL_HOST: '127.0.0.2' })
  t.equal(c.httpPort, 9090)
  t.equal(c.dataDir, '/srv/lintel')
  t.equal(c.host, '127.0.0.2')
  writeFileSync(file, '[1]')
  t.throws(() => loadConfig({ LINTEL_CONFIG: file }), { message: /must hold a JSON object/ })
  t.throws(() => loadConfig({ LINTEL_CONFIG: join(dir, 'missing.json') }), { message: /cannot read LINTEL_CONFIG file/ })
})

t.test('LINTEL_WEBHOOK_ALLOW: internal webhook receivers the operator allows', async (t) => {
  t.same(loadConfig({}).webhookAllow, [], 'none by default')
  t.same(loadConfig({ LINTEL_WEBHOOK_ALLOW: '127.0.0.1, hooks.lan,10.0.0.0/8' }).webhookAllow, ['127.0.0.1', 'hooks.lan', '10.0.0.0/8'])
  t.throws(() => loadConfig({ LINTEL_WEBHOOK_ALLOW: '10.0.0.0/40' }), { message: /LINTEL_WEBHOOK_ALLOW: '10.0.0.0\/40' is not a host name, address or CIDR range/ })
})

t.test('LINTEL_CATALOG_DIR: the SQLite catalog beside a data directory of the process\'s own', async (t) => {
  t.equal(loadConfig({ LINTEL_DATA_DIR: '/srv/a' }).catalogDir, '/srv/a', 'default: the data directory')
  t.equal(loadConfig({ LINTEL_DATA_DIR: '/srv/a', LINTEL_CATALOG_DIR: '/srv/catalog' }).catalogDir, '/srv/catalog')
  t.throws(() => loadConfig({ LINTEL_CATALOG_DIR: ' ' }), /LINTEL_CATALOG_DIR must not be empty/)
})
