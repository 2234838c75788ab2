// Configuration of the document storage (issue 10), read by server/config.ts:
//   LINTEL_BLOBS        fs (files under <data>/files, links served by the storage listener)
//                       or s3 (any S3-compatible storage); default fs in one process, and no
//                       documents when roles are split over processes (no shared disk) unless s3
//   LINTEL_BLOBS_HOST   where the storage listener binds (default LINTEL_HOST)
//   LINTEL_BLOBS_PORT   its port (default: the HTTP port + 1, so 8081; any free one when the
//                       HTTP port is 0)
//   LINTEL_BLOBS_URL    the listener's address as clients reach it (behind a proxy), e.g.
//                       https://files.example.com; default its own address
//   LINTEL_S3_ENDPOINT, LINTEL_S3_BUCKET, LINTEL_S3_ACCESS_KEY, LINTEL_S3_SECRET_KEY,
//   LINTEL_S3_REGION (default us-east-1)
import { join } from 'node:path'
import type { BlobConfig } from '../engine/blobs/index.ts'

type Source = Record<string, string | undefined>

export function readBlobsConfig(source: Source, c: { dataDir: string; host: string; httpPort: number; splitRoles: boolean }, problems: string[]): BlobConfig | undefined {
  const kind = source.LINTEL_BLOBS ?? (c.splitRoles ? undefined : 'fs')
  if (kind === undefined) return undefined
  if (kind === 's3') {
    const need = (name: string): string => {
      const v = source[name]
      if (v === undefined || v.trim() === '') problems.push(`LINTEL_BLOBS=s3 needs ${name}`)
      return v ?? ''
    }
    const endpoint = need('LINTEL_S3_ENDPOINT')
    if (endpoint !== '' && !/^https?:\/\/[^\s/]+/.test(endpoint)) problems.push(`LINTEL_S3_ENDPOINT must be an http(s):// URL, got '${endpoint}'`)
    return {
      kind: 's3', endpoint, bucket: need('LINTEL_S3_BUCKET'), accessKeyId: need('LINTEL_S3_ACCESS_KEY'),
      secretAccessKey: need('LINTEL_S3_SECRET_KEY'), region: source.LINTEL_S3_REGION,
    }
  }
  if (kind !== 'fs') {
    problems.push(`LINTEL_BLOBS must be fs or s3, got '${kind}'`)
    return undefined
  }
  if (c.splitRoles) problems.push('LINTEL_BLOBS=fs keeps documents on this machine\'s disk, which processes of split roles do not share: set LINTEL_BLOBS=s3')
  const portText = source.LINTEL_BLOBS_PORT
  const port = portText === undefined ? (c.httpPort === 0 ? 0 : c.httpPort + 1) : Number(portText)
  if (portText !== undefined && !(/^\d+$/.test(portText) && port <= 65535)) problems.push(`LINTEL_BLOBS_PORT must be an integer from 0 to 65535, got '${portText}'`)
  const publicUrl = source.LINTEL_BLOBS_URL
  if (publicUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(publicUrl)) problems.push(`LINTEL_BLOBS_URL must be an http(s):// URL, got '${publicUrl}'`)
  return { kind: 'fs', dir: join(c.dataDir, 'files'), host: source.LINTEL_BLOBS_HOST ?? c.host, port, publicUrl }
}
