// Short datapoint identifiers (spec 3, "Hash identifiers"): SHA1 digest of the UTF-8
// identifier, read as one unsigned big-endian integer, written in base62 with the alphabet
// 0-9A-Za-z (most significant digit first), truncated to the first `length` characters.
import { createHash } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

export function base62(bytes: Uint8Array): string {
  let n = 0n
  for (const b of bytes) n = (n << 8n) | BigInt(b)
  if (n === 0n) return '0'
  let out = ''
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out
    n /= 62n
  }
  return out
}

export function hashId(dataPointID: string, length = 8): string {
  const digest = createHash('sha1').update(dataPointID, 'utf8').digest()
  return base62(digest).slice(0, length)
}
