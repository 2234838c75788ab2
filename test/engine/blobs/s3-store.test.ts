// The scaled document store against a real S3-compatible server (S3Proxy, started by
// scripts/services/s3proxy.sh): the same contract as the embedded store.
import t from 'tap'
import { openS3BlobStore } from '../../../engine/blobs/s3-store.ts'
import { requireService } from '../../helpers/services.ts'
import { blobContract } from './contract.ts'
import { s3Env } from '../../helpers/s3.ts'


const { hostname, port } = new URL(s3Env.endpoint)
if (await requireService(t, 'S3Proxy', hostname, Number(port), 'scripts/services/s3proxy.sh start')) {
  t.test('contract', async (t) => blobContract(t, () => openS3BlobStore({ ...s3Env, partSize: 5 * 1024 * 1024 })))
}
