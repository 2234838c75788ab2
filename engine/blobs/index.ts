// Opens the document store chosen by configuration (LINTEL_BLOBS=fs|s3); adapters are loaded
// only when chosen, so the embedded mode never loads the AWS SDK.
import type { BlobStore } from './port.ts'

export type BlobConfig =
  | { kind: 'fs'; dir: string; host: string; port: number; publicUrl?: string }
  | { kind: 's3'; endpoint: string; bucket: string; accessKeyId: string; secretAccessKey: string; region?: string }

export async function openBlobStore(c: BlobConfig): Promise<BlobStore> {
  if (c.kind === 's3') {
    const { openS3BlobStore } = await import('./s3-store.ts')
    return openS3BlobStore(c)
  }
  const { openFsBlobStore } = await import('./fs-store.ts')
  return openFsBlobStore(c)
}

export type { BlobStore } from './port.ts'
