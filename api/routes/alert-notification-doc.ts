// The webhook notification of alerts in OpenAPI (issue 13 item 4: "Document the payload"), as a
// callback of the two create operations (OpenAPI 3.0 `callbacks`): the receiver's URL is the
// alert's notification.webhook.url. The body is engine/notify/payload.ts; the README section
// "Notifications" has the same text and a receiver's check of the signature.
import { Type } from '@sinclair/typebox'

const LEVELS = ['info', 'warn', 'crit']
/** OpenAPI 3.0: a nullable enum lists null among its values. */
const LevelOrNull = (description: string) => Type.Unsafe<string | null>({ type: 'string', enum: [...LEVELS, null], nullable: true, description })

export const WebhookPayload = Type.Object({
  type: Type.String({ enum: ['alert.raise', 'alert.reset'] }),
  alert: Type.Object({
    id: Type.Integer(), name: Type.String(), kind: Type.String({ enum: ['threshold', 'throughput'] }), project_id: Type.Integer(),
    dataPointID: Type.String(), attributes: Type.Record(Type.String(), Type.String()),
  }),
  event: Type.Object({
    id: Type.Integer({ description: 'Unique and stable: delivery is at least once, so receivers drop repeats by it' }),
    kind: Type.String({ enum: ['raise', 'reset'] }),
    level: Type.String({ enum: LEVELS, description: 'The level raised; for a reset, the level that ended' }),
    previous_level: LevelOrNull('For a raise from another level (escalation or de-escalation); otherwise null'),
    value: Type.Union([Type.Number(), Type.Null()], { description: 'The observed value; for a throughput alert the number of observations in the window; null for the reset of a disable' }),
    time: Type.String({ description: 'RFC 3339 UTC time of the observation (or timer) that caused the event' }),
  }),
}, { additionalProperties: false })

const DESCRIPTION = 'One POST per raise or reset, content-type application/json, with the headers x-lintel-delivery (the id of the notification, the same on every retry), ' +
  'x-lintel-event (alert.raise or alert.reset) and x-lintel-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed ' +
  'with the webhook secret>. Answer 2xx; anything else (or no answer within 10 s) is retried with back-off (1 s doubling to 30 s), oldest first.'

/** The `callbacks` of a route schema that creates an alert. */
export const alertNotificationCallbacks = {
  alertNotification: {
    '{$request.body#/notification/webhook/url}': {
      post: {
        summary: 'Alert notification: one raise or reset, POSTed to the alert\'s webhook URL',
        requestBody: { required: true, description: DESCRIPTION, content: { 'application/json': { schema: WebhookPayload } } },
        // The receiver's answers as the sender treats them (engine/notify/webhook.ts): only a
        // 2xx settles a notification; every other status is kept in the outbox and retried.
        responses: {
          '2XX': { description: 'Delivered: removed from the outbox' },
          '4XX': { description: 'Refused by the receiver (for example a bad signature): kept in the outbox and retried with back-off, oldest first' },
          '5XX': { description: 'The receiver failed: kept in the outbox and retried with back-off, oldest first' },
        },
      },
    },
  },
}

/**
 * @fastify/swagger 9 copies only the request body and the responses of a callback operation
 * (lib/spec/openapi/utils.js resolveCallbacks); this puts back the summary of ours into the
 * finished document (swaggerOptions.transformObject in api/openapi.ts).
 */
export function restoreCallbackSummaries(doc: { paths?: Record<string, Record<string, { callbacks?: Record<string, Record<string, Record<string, { summary?: string }>>> }>> }): void {
  const ours: Record<string, Record<string, Record<string, { summary?: string }>>> = alertNotificationCallbacks
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      for (const [event, urls] of Object.entries(op?.callbacks ?? {})) {
        for (const [url, methods] of Object.entries(urls)) {
          for (const [method, cb] of Object.entries(methods)) {
            const summary = ours[event]?.[url]?.[method]?.summary
            if (summary !== undefined) cb.summary = summary
          }
        }
      }
    }
  }
}
