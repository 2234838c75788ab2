// The webhook adapter of the notification port: HTTP POST of the payload through undici,
// signed with HMAC-SHA256 (payload.ts). Any answer other than 2xx, a connection failure or a
// time-out rejects, and the outbox tries again later. Connections are kept alive per origin.
import { Agent, request } from 'undici'
import { signature } from './payload.ts'
import type { NotificationAdapter } from './port.ts'

export interface WebhookOptions {
  /** Per request: connect, headers and body time-outs (ms); default 10,000. */
  timeoutMs?: number
  /** Connections per origin; default 32. */
  connections?: number
  /** Seconds since the epoch for the signature; injectable for tests. */
  nowSeconds?: () => number
}

export const SIGNATURE_HEADER = 'x-lintel-signature'

export function webhookAdapter(opts: WebhookOptions = {}): NotificationAdapter {
  const timeout = opts.timeoutMs ?? 10_000
  const agent = new Agent({ connections: opts.connections ?? 32, connect: { timeout }, headersTimeout: timeout, bodyTimeout: timeout, keepAliveTimeout: 10_000 })
  const now = opts.nowSeconds ?? (() => Math.floor(Date.now() / 1000))
  return {
    deliver: async (d, target) => {
      if (!target.webhook) throw new Error('the alert has no webhook any more')
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
