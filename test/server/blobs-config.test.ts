// Configuration of the document storage (server/blobs-config.ts): defaults, S3 settings, and
// every wrong value named.
import t from 'tap'
import { loadConfig } from '../../server/config.ts'

const SPLIT = { LINTEL_ROLES: 'api', LINTEL_LOG: 'kafka', LINTEL_KAFKA_BROKERS: '127.0.0.1:1', LINTEL_STORE: 'questdb', LINTEL_QUESTDB: 'http://127.0.0.1:1' }

t.test('embedded default: files under the data directory, the listener beside the HTTP port', async (t) => {
  t.same(loadConfig({ LINTEL_DATA_DIR: '/srv/lintel' }).blobs, { kind: 'fs', dir: '/srv/lintel/files', host: '127.0.0.1', port: 8081, publicUrl: undefined })
  t.match(loadConfig({ LINTEL_HTTP_PORT: '0' }).blobs, { port: 0 }, 'any free port when the HTTP port is any free port')
  t.match(loadConfig({ LINTEL_BLOBS_PORT: '9100', LINTEL_BLOBS_HOST: '0.0.0.0', LINTEL_BLOBS_URL: 'https://files.example.com' }).blobs,
    { port: 9100, host: '0.0.0.0', publicUrl: 'https://files.example.com' })
  t.equal(loadConfig(SPLIT).blobs, undefined, 'split roles without s3: no documents')
})

t.test('s3 needs endpoint, bucket and credentials', async (t) => {
  t.same(loadConfig({ ...SPLIT, LINTEL_BLOBS: 's3', LINTEL_S3_ENDPOINT: 'http://127.0.0.1:18333', LINTEL_S3_BUCKET: 'b', LINTEL_S3_ACCESS_KEY: 'k', LINTEL_S3_SECRET_KEY: 's' }).blobs,
    { kind: 's3', endpoint: 'http://127.0.0.1:18333', bucket: 'b', accessKeyId: 'k', secretAccessKey: 's', region: undefined })
  t.throws(() => loadConfig({ LINTEL_BLOBS: 's3' }), { message: /LINTEL_BLOBS=s3 needs LINTEL_S3_ENDPOINT\n {2}- LINTEL_BLOBS=s3 needs LINTEL_S3_BUCKET/ })
})

t.test('wrong values are named', async (t) => {
  t.throws(() => loadConfig({ LINTEL_BLOBS: 'ftp' }), { message: /LINTEL_BLOBS must be fs or s3, got 'ftp'/ })
  t.throws(() => loadConfig({ LINTEL_BLOBS_PORT: 'x' }), { message: /LINTEL_BLOBS_PORT must be an integer from 0 to 65535, got 'x'/ })
  t.throws(() => loadConfig({ LINTEL_BLOBS_URL: 'files.example.com' }), { message: /LINTEL_BLOBS_URL must be an http\(s\):\/\/ URL/ })
  t.throws(() => loadConfig({ ...SPLIT, LINTEL_BLOBS: 'fs' }), { message: /set LINTEL_BLOBS=s3/ })
})
