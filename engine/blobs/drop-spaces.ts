// Removes whole document spaces from the storage without a running server: the operator's
// `lintel company delete` calls it right after the catalog delete, so the company's document
// links stop working at once (issue 29) instead of at the server's next orphan sweep. For the
// embedded storage the objects are files under <data>/files/objects (no storage listener is
// started); for S3 the objects are deleted, which is the only way to end presigned links.
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { BlobConfig } from './index.ts'
import { assertKey } from './port.ts'

export async function dropSpaces(c: BlobConfig, keys: readonly string[]): Promise<void> {
  for (const k of keys) assertKey(k)
  if (c.kind === 'fs') {
    for (const k of keys) await rm(join(c.dir, 'objects', k), { recursive: true, force: true })
    return
  }
  const { openS3BlobStore } = await import('./s3-store.ts')
  const store = await openS3BlobStore(c)
  try {
    for (const k of keys) await store.deletePrefix(k)
  } finally {
    await store.close()
  }
}
