// Bearer tokens: random 256-bit values; only their SHA-256 is stored, with the user and the
// expiry. Deleting the user (or changing the password) deletes its tokens: revocation.
import { createHash } from 'node:crypto'

export interface IssuedToken { access_token: string; token_type: 'Bearer'; expires_in: number; expires_at: string }

export const digest = (token: string): string => createHash('sha256').update(token).digest('base64url')
