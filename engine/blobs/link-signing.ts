// Signed, expiring links of the embedded storage listener (spec 1 "Documents": the link is
// served by the storage, not the API, and stops working at valid_until). Pure: HMAC-SHA256
// over bucket, key, expiry and file name with a secret only the platform knows.
import { createHmac, timingSafeEqual } from 'node:crypto'

export interface SignedParams { expires: number; filename?: string }

const payload = (bucket: string, key: string, p: SignedParams) => `${bucket}\n${key}\n${p.expires}\n${p.filename ?? ''}`

export function sign(secret: Buffer, bucket: string, key: string, p: SignedParams): string {
  return createHmac('sha256', secret).update(payload(bucket, key, p)).digest('hex')
}

/** Query string of a link: X-Lintel-Expires (Unix seconds), optional filename, X-Lintel-Signature. */
export function linkQuery(secret: Buffer, bucket: string, key: string, p: SignedParams): string {
  const q = new URLSearchParams({ 'X-Lintel-Expires': String(p.expires) })
  if (p.filename !== undefined) q.set('filename', p.filename)
  q.set('X-Lintel-Signature', sign(secret, bucket, key, p))
  return q.toString()
}

export type Verdict = { ok: true; params: SignedParams } | { ok: false; reason: 'signature' | 'expired' }

/** Checks a link's query at `nowMs`: the signature first (a forged expiry is a bad signature). */
export function verify(secret: Buffer, bucket: string, key: string, query: URLSearchParams, nowMs: number): Verdict {
  const expiresText = query.get('X-Lintel-Expires') ?? ''
  const given = query.get('X-Lintel-Signature') ?? ''
  if (!/^\d{1,12}$/.test(expiresText) || !/^[0-9a-f]{64}$/.test(given)) return { ok: false, reason: 'signature' }
  const params: SignedParams = { expires: Number(expiresText), filename: query.get('filename') ?? undefined }
  const want = Buffer.from(sign(secret, bucket, key, params), 'hex')
  if (!timingSafeEqual(want, Buffer.from(given, 'hex'))) return { ok: false, reason: 'signature' }
  if (nowMs >= params.expires * 1000) return { ok: false, reason: 'expired' }
  return { ok: true, params }
}
