// The document storage port (DESIGN.md "documents"; spec 1 "Documents"): objects under opaque
// keys, written from a stream, read through expiring links that the storage itself serves
// (never the /v2 API). Two adapters pass one contract suite (test/engine/blobs/contract.ts):
//   fs-store.ts  embedded: files under <data>/files, links served by storage-listener.ts
//   s3-store.ts  scaled: any S3-compatible storage, links presigned by the AWS SDK
// Keys are '/'-separated, made by the caller (api/documents): `<space>/<unique id>`. A key
// is written once; replacing a document writes a new key, so readers never see half a file.
import type { Readable } from 'node:stream'

export interface LinkOptions {
  /** Lifetime of the link, seconds. */
  expiresInSeconds: number
  /** The moment the link is signed (injected clock; the link expires this + lifetime). */
  now: Date
  /** File name offered to the browser (Content-Disposition: attachment). */
  filename?: string
}

export interface BlobLink { url: string; validUntil: Date }

export interface BlobStore {
  /** 'fs' or 's3': which adapter this is (logs, benchmarks). */
  readonly kind: string
  /**
   * Stores the stream under `key`; resolves once it is durable and visible, never before.
   * When `body` errors (a quota crossed, a client gone) the object does not appear and
   * nothing partial stays visible. Memory stays bounded: the stream's backpressure is kept.
   */
  put(key: string, body: Readable): Promise<void>
  /** A link the storage serves without the API, valid until `now + expiresInSeconds`. */
  link(key: string, opts: LinkOptions): Promise<BlobLink>
  /** Size in bytes, or undefined when the key does not exist. */
  size(key: string): Promise<number | undefined>
  /** Removes the object; a missing key is not an error. */
  delete(key: string): Promise<void>
  /** Removes every object whose key starts with `prefix` + '/' (a whole space). */
  deletePrefix(prefix: string): Promise<void>
  /** The first segments of all keys (the spaces holding objects), for the orphan sweep. */
  listPrefixes(): Promise<string[]>
  close(): Promise<void>
}

/** Keys are made by the platform, but the adapters refuse anything that could escape a folder. */
export function assertKey(key: string): void {
  if (!/^[A-Za-z0-9_-]+(\/[A-Za-z0-9._-]+)*$/.test(key) || key.split('/').some((s) => s === '.' || s === '..')) {
    throw new Error(`Invalid blob key '${key}'`)
  }
}
