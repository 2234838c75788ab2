// Passwords are stored only as salted scrypt hashes (DESIGN.md "passwords").
// Format: scrypt$N$r$p$<salt b64>$<hash b64>, so parameters can be raised later.
import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto'

const N = 16384
const R = 8
const P = 1
const KEYLEN = 32

export function hashPassword(password: string): string {
  const salt = randomBytes(16)
  const hash = scryptSync(password, salt, KEYLEN, { N, r: R, p: P })
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`
}

/** Asynchronous so a login does not block the event loop for the ~50 ms a hash takes. */
export function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return Promise.resolve(false)
  const [, n, r, p, saltB64, hashB64] = parts
  const expected = Buffer.from(hashB64, 'base64')
  return new Promise((resolve) => {
    scrypt(password, Buffer.from(saltB64, 'base64'), expected.length,
      { N: Number(n), r: Number(r), p: Number(p) },
      (err, derived) => resolve(!err && timingSafeEqual(derived, expected)))
  })
}
