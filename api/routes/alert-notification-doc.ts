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
        requestBody: { required: true, description: DESCRIPTION, content: { 'application/json': { schema: WebhookPayload } } },
        responses: { '2XX': { description: 'Delivered: removed from the outbox' } },
      },
    },
  },
}
