// The webhook adapter of the notification port: HTTP POST of the payload through undici,
// signed with HMAC-SHA256 (payload.ts). Any answer other than 2xx, a connection failure or a
// time-out rejects, and the outbox tries again later. Connections are kept alive per origin.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { isIP, type LookupFunction } from 'node:net'
import { Agent, request } from 'undici'
import { WebhookAddressPolicy } from './address-policy.ts'
import { signature } from './payload.ts'
import type { NotificationAdapter } from './port.ts'

export interface WebhookOptions {
  /** Per request: connect, headers and body time-outs (ms); default 10,000. */
  timeoutMs?: number
  /** Connections per origin; default 32. */
  connections?: number
  /** Seconds since the epoch for the signature; injectable for tests. */
  nowSeconds?: () => number
  /** Which addresses may be reached; default: no internal address (address-policy.ts). */
  policy?: WebhookAddressPolicy
}

/** DNS lookup that refuses internal addresses: checked on what is connected to, after DNS. */
function guardedLookup(policy: WebhookAddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0)
      const refused = addresses.map((a) => policy.refusal(hostname, a.address)).find((r) => r !== undefined)
      if (refused) return callback(Object.assign(new Error(refused), { code: 'EWEBHOOKADDRESS' }), '', 0)
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses)
      callback(null, addresses[0].address, addresses[0].family)
    })
  }
}

/** The refusal of a URL whose host is an address literal (no DNS lookup happens for those). */
export function literalRefusal(url: string, policy: WebhookAddressPolicy): string | undefined {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '')
  return isIP(host) ? policy.refusal(host, host) : host.toLowerCase() === 'localhost' ? policy.refusal(host, '127.0.0.1') : undefined
}

export const SIGNATURE_HEADER = 'x-lintel-signature'

export function webhookAdapter(opts: WebhookOptions = {}): NotificationAdapter {
  const timeout = opts.timeoutMs ?? 10_000
  const policy = opts.policy ?? new WebhookAddressPolicy()
  const agent = new Agent({ connections: opts.connections ?? 32, connect: { timeout, lookup: guardedLookup(policy) }, headersTimeout: timeout, bodyTimeout: timeout, keepAliveTimeout: 10_000 })
  const now = opts.nowSeconds ?? (() => Math.floor(Date.now() / 1000))
  return {
    deliver: async (d, target) => {
      if (!target.webhook) throw new Error('the alert has no webhook any more')
      const refused = literalRefusal(target.webhook.url, policy)
      if (refused) throw new Error(refused)
      const res = await request(target.webhook.url, {
        method: 'POST',
        dispatcher: agent,
        body: d.payload,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'lintel-alerts',
          'x-lintel-delivery': String(d.id),
          'x-lintel-event': JSON.parse(d.payload).type,
          [SIGNATURE_HEADER]: signature(target.webhook.secret, d.payload, now()),
        },
      })
      await res.body.dump()
      if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`webhook answered ${res.statusCode}`)
    },
    close: () => agent.close(),
  }
}
