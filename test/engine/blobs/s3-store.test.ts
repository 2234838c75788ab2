// The scaled document store against a real S3-compatible server (S3Proxy, started by
// scripts/services/s3proxy.sh): the same contract as the embedded store.
import t from 'tap'
import { openS3BlobStore } from '../../../engine/blobs/s3-store.ts'
import { requireService } from '../../helpers/services.ts'
import { blobContract } from './contract.ts'

export const s3Env = {
  endpoint: process.env.LINTEL_S3_ENDPOINT ?? 'http://127.0.0.1:18333',
  bucket: process.env.LINTEL_S3_BUCKET ?? 'lintel',
  accessKeyId: process.env.LINTEL_S3_ACCESS_KEY ?? 'lintel',
  secretAccessKey: process.env.LINTEL_S3_SECRET_KEY ?? 'lintel-secret',
}

const { hostname, port } = new URL(s3Env.endpoint)
if (await requireService(t, 'S3Proxy', hostname, Number(port), 'scripts/services/s3proxy.sh start')) {
  t.test('contract', async (t) => blobContract(t, () => openS3BlobStore({ ...s3Env, partSize: 5 * 1024 * 1024 })))
}
