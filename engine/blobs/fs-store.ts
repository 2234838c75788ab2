// Embedded adapter of the document store: objects are files under <data>/files/objects, each
// written to a temporary name in the same file system (DurableFileWriter: flushed as it
// arrives, fdatasync at the end) and renamed into place after that, so
// a crash mid-upload never leaves a partial file visible (issue 10). Links are served by the
// storage listener on its own port, signed with a secret kept in <data>/files/link-secret.
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { DurableFileWriter } from './durable-file.ts'
import { linkQuery } from './link-signing.ts'
import { assertKey, type BlobLink, type BlobStore, type LinkOptions } from './port.ts'
import { startStorageListener, type StorageListener } from './storage-listener.ts'

export interface FsBlobOptions {
  /** The document directory, normally <data>/files. */
  dir: string
  /** Where the storage listener binds (LINTEL_BLOBS_HOST / LINTEL_BLOBS_PORT; 0: any free port). */
  host: string
  port: number
  /** Base URL clients reach the listener at (behind a proxy); default: the bound address. */
  publicUrl?: string
  /** HMAC secret of the links; default: read or create <dir>/link-secret. */
  secret?: Buffer
  now?: () => number
}

const BUCKET = 'files'

export async function openFsBlobStore(o: FsBlobOptions): Promise<BlobStore & { listenerUrl: string }> {
  const objects = join(o.dir, 'objects')
  const tmp = join(o.dir, 'tmp')
  mkdirSync(objects, { recursive: true })
  // Temporary files of uploads a crash interrupted are never renamed: drop them.
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(tmp, { recursive: true })
  const secret = o.secret ?? loadSecret(join(o.dir, 'link-secret'))
  const fileOf = (key: string) => {
    try { assertKey(key) } catch { return undefined }
    return join(objects, key)
  }
  const listener: StorageListener = await startStorageListener({ host: o.host, port: o.port, bucket: BUCKET, secret, fileOf, now: o.now ?? Date.now })
  const base = (o.publicUrl ?? listener.url).replace(/\/+$/, '')

  return {
    kind: 'fs',
    listenerUrl: listener.url,
    async put(key: string, body: Readable): Promise<void> {
      assertKey(key)
      const temp = join(tmp, randomUUID())
      try {
        await pipeline(body, new DurableFileWriter(temp))
        const target = join(objects, key)
        await mkdir(dirname(target), { recursive: true })
        await rename(temp, target)
      } catch (err) {
        await unlink(temp).catch(() => {})
        throw err
      }
    },
    async link(key: string, l: LinkOptions): Promise<BlobLink> {
      assertKey(key)
      const expires = Math.floor(l.now.getTime() / 1000) + l.expiresInSeconds
      const path = key.split('/').map(encodeURIComponent).join('/')
      return { url: `${base}/${BUCKET}/${path}?${linkQuery(secret, BUCKET, key, { expires, filename: l.filename })}`, validUntil: new Date(expires * 1000) }
    },
    async size(key: string): Promise<number | undefined> {
      assertKey(key)
      const st = await stat(join(objects, key)).catch(() => undefined)
      return st?.isFile() ? st.size : undefined
    },
    async delete(key: string): Promise<void> {
      assertKey(key)
      await rm(join(objects, key), { force: true })
    },
    async deletePrefix(prefix: string): Promise<void> {
      assertKey(prefix)
      await rm(join(objects, prefix), { recursive: true, force: true })
    },
    async listPrefixes(): Promise<string[]> {
      return (await readdir(objects, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name)
    },
    close: () => listener.close(),
  }
}

function loadSecret(path: string): Buffer {
  if (existsSync(path)) return readFileSync(path)
  const secret = randomBytes(32)
  writeFileSync(path, secret, { mode: 0o600, flag: 'wx' })
  return secret
}
