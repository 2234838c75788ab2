// A multipart/form-data body with one file part, for document uploads through inject().
import { randomBytes } from 'node:crypto'

export function fileForm(filename: string, data: Buffer, field = 'file'): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----lintel${randomBytes(8).toString('hex')}`
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`)
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`)
  return { payload: Buffer.concat([head, data, tail]), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } }
}
