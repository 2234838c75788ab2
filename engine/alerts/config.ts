// Configuration of alerts (issue 13; payloads "not shown" in spec 3, so designed here and
// documented in the README): validated once at creation, parsed again by the runtime.
//
// threshold: `thresholds` holds up to three levels (info, warn, crit), each with
//   upper / lower: raised when value >= upper or value <= lower;
//   upper_reset / lower_reset (hysteresis): a raised level holds while value >= upper_reset
//     (resp. <= lower_reset); default: the threshold itself (no hysteresis);
//   duration_seconds: the raise condition must hold without interruption (event time) this
//     long before the level is raised; default 0. Resets are immediate.
// throughput: `throughput` = { window_seconds, min_count (default 1), level (default warn) }:
//   raised when fewer than min_count observations arrived within the last window_seconds.
// notification: { webhook?: { url, secret }, log?: boolean, email?: { to: [addresses] } } (engine/notify).
import { InvalidInputError } from '../../core/errors.ts'
export const LEVELS = ['info', 'warn', 'crit'] as const
export type Level = (typeof LEVELS)[number]

export interface LevelThreshold { upper?: number; lower?: number; upper_reset?: number; lower_reset?: number; duration_seconds?: number }
export type Thresholds = Partial<Record<Level, LevelThreshold>>
export interface ThroughputConfig { window_seconds: number; min_count: number; level: Level }
export interface NotificationConfig { webhook?: { url: string; secret: string }; log?: boolean; email?: { to: string[] } }

/** An address a mail server takes: local@domain, no spaces, no angle brackets or commas (one recipient, no header injection). */
const EMAIL = /^[^\s@<>,;"()\[\]\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/

/** 400 ALERT_CONFIG_INVALID (core/errors.ts): answered as it is by the API's error handler. */
export class AlertConfigError extends InvalidInputError {
  constructor (message: string) { super(message, 'ALERT_CONFIG_INVALID') }
}

const num = (v: unknown, where: string): number | undefined => {
  if (v === undefined) return undefined
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new AlertConfigError(`${where} must be a finite number`)
  return v
}

export function parseThresholds(raw: unknown): Thresholds {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new AlertConfigError('thresholds must be an object with the levels info, warn and/or crit')
  const out: Thresholds = {}
  for (const [key, value] of Object.entries(raw)) {
    if (!(LEVELS as readonly string[]).includes(key)) throw new AlertConfigError(`thresholds.${key}: unknown level; the levels are ${LEVELS.join(', ')}`)
    if (!value || typeof value !== 'object') throw new AlertConfigError(`thresholds.${key} must be an object`)
    const v = value as Record<string, unknown>
    for (const k of Object.keys(v)) {
      if (!['upper', 'lower', 'upper_reset', 'lower_reset', 'duration_seconds'].includes(k)) throw new AlertConfigError(`thresholds.${key}.${k}: unknown field`)
    }
    const t: LevelThreshold = {
      upper: num(v.upper, `thresholds.${key}.upper`), lower: num(v.lower, `thresholds.${key}.lower`),
      upper_reset: num(v.upper_reset, `thresholds.${key}.upper_reset`), lower_reset: num(v.lower_reset, `thresholds.${key}.lower_reset`),
      duration_seconds: num(v.duration_seconds, `thresholds.${key}.duration_seconds`),
    }
    if (t.upper === undefined && t.lower === undefined) throw new AlertConfigError(`thresholds.${key}: give an upper and/or a lower threshold`)
    if (t.upper_reset !== undefined && (t.upper === undefined || t.upper_reset > t.upper)) throw new AlertConfigError(`thresholds.${key}.upper_reset must be at or below upper`)
    if (t.lower_reset !== undefined && (t.lower === undefined || t.lower_reset < t.lower)) throw new AlertConfigError(`thresholds.${key}.lower_reset must be at or above lower`)
    if (t.upper !== undefined && t.lower !== undefined && (t.lower_reset ?? t.lower) >= (t.upper_reset ?? t.upper)) {
      throw new AlertConfigError(`thresholds.${key}: the lower side (with its reset) must stay below the upper side`)
    }
    if (t.duration_seconds !== undefined && (t.duration_seconds < 0 || t.duration_seconds > 31 * 86400)) throw new AlertConfigError(`thresholds.${key}.duration_seconds must be between 0 and 2678400`)
    out[key as Level] = Object.fromEntries(Object.entries(t).filter(([, x]) => x !== undefined)) as LevelThreshold
  }
  if (Object.keys(out).length === 0) throw new AlertConfigError('thresholds: give at least one level (info, warn, crit)')
  return out
}

export function parseThroughput(raw: unknown): ThroughputConfig {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new AlertConfigError('throughput must be an object { window_seconds, min_count, level }')
  const v = raw as Record<string, unknown>
  for (const k of Object.keys(v)) if (!['window_seconds', 'min_count', 'level'].includes(k)) throw new AlertConfigError(`throughput.${k}: unknown field`)
  const window = v.window_seconds
  if (typeof window !== 'number' || !Number.isInteger(window) || window < 1 || window > 31 * 86400) throw new AlertConfigError('throughput.window_seconds must be an integer between 1 and 2678400')
  const min = v.min_count ?? 1
  if (typeof min !== 'number' || !Number.isInteger(min) || min < 1 || min > 100_000) throw new AlertConfigError('throughput.min_count must be an integer between 1 and 100000')
  const level = v.level ?? 'warn'
  if (!(LEVELS as readonly unknown[]).includes(level)) throw new AlertConfigError(`throughput.level must be one of ${LEVELS.join(', ')}`)
  return { window_seconds: window, min_count: min, level: level as Level }
}

export function parseNotification(raw: unknown): NotificationConfig {
  if (raw === undefined) return {}
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new AlertConfigError('notification must be an object { webhook?: { url, secret }, log?: boolean, email?: { to } }')
  const v = raw as Record<string, unknown>
  for (const k of Object.keys(v)) if (!['webhook', 'log', 'email'].includes(k)) throw new AlertConfigError(`notification.${k}: unknown channel; the channels are webhook, email and log`)
  const out: NotificationConfig = {}
  if (v.log !== undefined) {
    if (typeof v.log !== 'boolean') throw new AlertConfigError('notification.log must be a boolean')
    out.log = v.log
  }
  if (v.webhook !== undefined) {
    const w = v.webhook as Record<string, unknown>
    if (!w || typeof w !== 'object') throw new AlertConfigError('notification.webhook must be an object { url, secret }')
    let url: URL
    try { url = new URL(String(w.url)) } catch { throw new AlertConfigError('notification.webhook.url must be an absolute http(s) URL') }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AlertConfigError('notification.webhook.url must be an absolute http(s) URL')
    if (typeof w.secret !== 'string' || w.secret.length < 16 || w.secret.length > 200) throw new AlertConfigError('notification.webhook.secret must be a string of 16 to 200 characters (the HMAC-SHA256 key)')
    out.webhook = { url: url.toString(), secret: w.secret }
  }
  if (v.email !== undefined) out.email = parseEmail(v.email)
  return out
}

function parseEmail(raw: unknown): { to: string[] } {
  const e = raw as Record<string, unknown>
  if (!e || typeof e !== 'object' || Array.isArray(e) || !Array.isArray(e.to)) throw new AlertConfigError('notification.email must be an object { to: [addresses] }')
  for (const k of Object.keys(e)) if (k !== 'to') throw new AlertConfigError(`notification.email.${k}: unknown field`)
  if (e.to.length < 1 || e.to.length > 20) throw new AlertConfigError('notification.email.to must hold 1 to 20 addresses')
  for (const [i, a] of e.to.entries()) {
    if (typeof a !== 'string' || a.length > 254 || !EMAIL.test(a)) throw new AlertConfigError(`notification.email.to[${i}]: '${String(a).slice(0, 100)}' is not an e-mail address`)
  }
  return { to: [...new Set(e.to as string[])] }
}

/** The channels an alert notifies: 'webhook', 'email', 'log'. */
export const channelsOf = (n: NotificationConfig): string[] => [...(n.webhook ? ['webhook'] : []), ...(n.email ? ['email'] : []), ...(n.log ? ['log'] : [])]

/** Severity order: a higher index is more severe. */
export const severity = (l: Level | null | undefined): number => (l ? LEVELS.indexOf(l) : -1)
