// The console's one way to the API: log in with HTTP Basic once to get a bearer token
// (POST /v2/auth/token), keep the token in sessionStorage (gone with the tab, never in
// localStorage or a cookie), and send it as `Authorization: Bearer` on every call.
const KEY = 'lintel.session'

/** @typedef {{ token: string, email: string, expiresAt: string }} Session */

export class ApiError extends Error {
  /** @param {number} status @param {string} message @param {string} [code] */
  constructor(status, message, code) {
    super(message)
    this.status = status
    this.code = code
  }
}

/** @returns {Session|null} */
export function session() {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) ?? 'null')
    if (s && typeof s.token === 'string' && Date.parse(s.expiresAt) > Date.now()) return s
  } catch { /* a damaged entry is no session */ }
  return null
}

/** Exchange email and password for a token; the password is not kept. */
export async function login(email, password) {
  const basic = btoa(String.fromCharCode(...new TextEncoder().encode(`${email}:${password}`)))
  const res = await fetch('/v2/auth/token', { method: 'POST', headers: { authorization: `Basic ${basic}` } })
  const body = await res.json().catch(() => ({}))
  if (!res.ok) throw new ApiError(res.status, body.error ?? `Login failed (${res.status})`)
  const r = body.resource
  /** @type {Session} */
  const s = { token: r.access_token, email, expiresAt: r.expires_at }
  sessionStorage.setItem(KEY, JSON.stringify(s))
  return s
}

/** Revoke the token on the server and forget it here. */
export async function logout() {
  const s = session()
  sessionStorage.removeItem(KEY)
  if (s) await fetch('/v2/auth/token', { method: 'DELETE', headers: { authorization: `Bearer ${s.token}` } }).catch(() => {})
}

/** Called when the server refuses the token (expired, revoked): the app shows the login. */
let onUnauthorized = () => {}
export function whenUnauthorized(fn) { onUnauthorized = fn }

/**
 * A call to the API. `query` values that are undefined are left out; `body` is sent as JSON,
 * `form` as multipart. Answers the parsed JSON; a failure throws ApiError with the API's text.
 * @param {string} method
 * @param {string} path
 * @param {{ query?: Record<string, any>, body?: any, form?: FormData }} [opts]
 */
export async function api(method, path, opts = {}) {
  const s = session()
  if (!s) { onUnauthorized(); throw new ApiError(401, 'Not logged in') }
  const res = await fetch(url(path, opts.query), {
    method,
    headers: { authorization: `Bearer ${s.token}`, ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: opts.form ?? (opts.body !== undefined ? JSON.stringify(opts.body) : undefined),
  })
  const text = await res.text()
  let body
  try { body = text ? JSON.parse(text) : {} } catch { body = { error: text } }
  if (res.status === 401) { sessionStorage.removeItem(KEY); onUnauthorized() }
  if (!res.ok) throw new ApiError(res.status, body.error ?? `${method} ${path}: ${res.status}`, res.headers.get('lintel-error-code') ?? undefined)
  return body
}

/** @param {string} path @param {Record<string, any>} [query] */
export function url(path, query = {}) {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v))
  const qs = q.toString()
  return qs ? `${path}?${qs}` : path
}
