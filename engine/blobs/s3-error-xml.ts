// The S3-style XML error body (spec 1 "Documents": after valid_until the storage answers 403
// with Code, Message, Key, BucketName, Resource, RequestId, HostId). The embedded storage
// listener answers exactly as S3 (and S3Proxy) do, so clients handle both storages alike.
import { randomBytes } from 'node:crypto'

const escape = (s: string) => s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!)

export interface S3Error { code: string; message: string; bucket: string; key: string; hostId: string }

export function s3ErrorXml(e: S3Error): string {
  const fields: [string, string][] = [
    ['Code', e.code], ['Message', e.message], ['Key', e.key], ['BucketName', e.bucket],
    ['Resource', `/${e.bucket}/${e.key}`], ['RequestId', randomBytes(8).toString('hex').toUpperCase()], ['HostId', e.hostId],
  ]
  return '<?xml version="1.0" encoding="UTF-8"?>\n<Error>' + fields.map(([k, v]) => `<${k}>${escape(v)}</${k}>`).join('') + '</Error>'
}
