import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../../api/config.ts'

t.test('defaults', async (t) => {
  t.same(loadConfig({}), {
    dataDir: './data', host: '127.0.0.1', httpPort: 8080, logLevel: 'info', tokenTtlSeconds: 3600,
    ingestBodyLimit: 64 * 1024 * 1024, uploadLimit: 4096 * 1024 * 1024,
    vdpDefaultEnabled: true,
    mqtt: { tlsPort: 8884, wsPort: 9001, tcpPort: undefined, certFile: undefined, keyFile: undefined },
  })
})

t.test('every wrong value is named with what was expected', async (t) => {
  t.throws(() => loadConfig({ LINTEL_HTTP_PORT: 'eighty' }), { message: /LINTEL_HTTP_PORT must be an integer from 0 to 65535, got 'eighty'/ })
  t.throws(() => loadConfig({ LINTEL_HTTP_PORT: '70000' }), { message: /LINTEL_HTTP_PORT must be an integer from 0 to 65535, got '70000'/ })
  t.throws(() => loadConfig({ LINTEL_LOG_LEVEL: 'loud', LINTEL_HOST: ' ' }), { message: /LINTEL_HOST must not be empty\n {2}- LINTEL_LOG_LEVEL must be one of/ })
  t.throws(() => loadConfig({ LINTEL_COMPANY_NAME: 'Acme' }), { message: /must be given together/ })
  t.throws(() => loadConfig({ LINTEL_COMPANY_NAME: 'Acme', LINTEL_ADMIN_EMAIL: 'nope', LINTEL_ADMIN_PASSWORD: 'short' }),
    { message: /LINTEL_ADMIN_EMAIL must be an email address, got 'nope'\n {2}- LINTEL_ADMIN_PASSWORD must be at least 8 characters/ })
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
