// Alert configuration refusals (issue 13): each wrong field is named in the 400 text the API
// answers as it is (ALERT_CONFIG_INVALID); what is accepted comes back normalized.
import t from 'tap'
import { AlertConfigError, channelsOf, parseNotification, parseThresholds, parseThroughput } from '../../../engine/alerts/config.ts'

const refused: [string, () => unknown, string][] = [
  ['thresholds not an object', () => parseThresholds([]), 'thresholds must be an object with the levels info, warn and/or crit'],
  ['unknown level', () => parseThresholds({ high: { upper: 1 } }), 'thresholds.high: unknown level; the levels are info, warn, crit'],
  ['level not an object', () => parseThresholds({ warn: 3 }), 'thresholds.warn must be an object'],
  ['unknown field', () => parseThresholds({ warn: { upper: 1, above: 2 } }), 'thresholds.warn.above: unknown field'],
  ['not a number', () => parseThresholds({ warn: { upper: '25' } }), 'thresholds.warn.upper must be a finite number'],
  ['no side', () => parseThresholds({ warn: { duration_seconds: 5 } }), 'thresholds.warn: give an upper and/or a lower threshold'],
  ['upper reset above upper', () => parseThresholds({ warn: { upper: 25, upper_reset: 26 } }), 'thresholds.warn.upper_reset must be at or below upper'],
  ['lower reset without lower', () => parseThresholds({ warn: { upper: 25, lower_reset: 1 } }), 'thresholds.warn.lower_reset must be at or above lower'],
  ['sides crossed', () => parseThresholds({ crit: { upper: 25, lower: 20, lower_reset: 26, upper_reset: 24 } }), 'thresholds.crit: the lower side (with its reset) must stay below the upper side'],
  ['duration too long', () => parseThresholds({ info: { lower: 0, duration_seconds: 31 * 86400 + 1 } }), 'thresholds.info.duration_seconds must be between 0 and 2678400'],
  ['no level', () => parseThresholds({}), 'thresholds: give at least one level (info, warn, crit)'],
  ['throughput not an object', () => parseThroughput(null), 'throughput must be an object { window_seconds, min_count, level }'],
  ['throughput unknown field', () => parseThroughput({ window_seconds: 60, every: 1 }), 'throughput.every: unknown field'],
  ['window not an integer', () => parseThroughput({ window_seconds: 1.5 }), 'throughput.window_seconds must be an integer between 1 and 2678400'],
  ['min_count 0', () => parseThroughput({ window_seconds: 60, min_count: 0 }), 'throughput.min_count must be an integer between 1 and 100000'],
  ['unknown throughput level', () => parseThroughput({ window_seconds: 60, level: 'fatal' }), 'throughput.level must be one of info, warn, crit'],
  ['notification not an object', () => parseNotification('log'), 'notification must be an object { webhook?: { url, secret }, log?: boolean, email?: { to } }'],
  ['unknown channel', () => parseNotification({ sms: '+4912345' }), 'notification.sms: unknown channel; the channels are webhook, email and log'],
  ['e-mail recipients', () => parseNotification({ email: { to: ['a@b.example', 'not an address'] } }), "notification.email.to[1]: 'not an address' is not an e-mail address"],
  ['e-mail field', () => parseNotification({ email: { to: ['a@b.example'], cc: [] } }), 'notification.email.cc: unknown field'],
  ['log not a boolean', () => parseNotification({ log: 'yes' }), 'notification.log must be a boolean'],
  ['webhook not an object', () => parseNotification({ webhook: null }), 'notification.webhook must be an object { url, secret }'],
  ['webhook url not a URL', () => parseNotification({ webhook: { url: 'not a url', secret: 'x'.repeat(16) } }), 'notification.webhook.url must be an absolute http(s) URL'],
  ['webhook url not http', () => parseNotification({ webhook: { url: 'ftp://example.com/hook', secret: 'x'.repeat(16) } }), 'notification.webhook.url must be an absolute http(s) URL'],
  ['webhook secret short', () => parseNotification({ webhook: { url: 'https://example.com/hook', secret: 'short' } }), 'notification.webhook.secret must be a string of 16 to 200 characters (the HMAC-SHA256 key)'],
]

t.test('refusals name the field, with the 400 code', async (t) => {
  for (const [what, parse, message] of refused) {
    t.throws(parse, { message, code: 'ALERT_CONFIG_INVALID', status: 400 }, what)
    try { parse() } catch (err) { t.ok(err instanceof AlertConfigError, `${what}: an AlertConfigError`) }
  }
})

t.test('accepted configurations, normalized', async (t) => {
  t.same(parseThresholds({ warn: { upper: 25, upper_reset: 23 }, crit: { lower: -5 } }), { warn: { upper: 25, upper_reset: 23 }, crit: { lower: -5 } })
  t.same(parseThroughput({ window_seconds: 60 }), { window_seconds: 60, min_count: 1, level: 'warn' }, 'defaults: one observation, warn')
  t.same(parseNotification(undefined), {})
  const n = parseNotification({ log: true, webhook: { url: 'https://example.com/hook', secret: 's'.repeat(16) } })
  t.same(n, { log: true, webhook: { url: 'https://example.com/hook', secret: 's'.repeat(16) } })
  t.same(channelsOf(n), ['webhook', 'log'])
  t.same(channelsOf({ log: false }), [])
})
