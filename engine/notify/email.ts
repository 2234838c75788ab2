// The e-mail adapter of the notification port (issue 34 item 3): one message per stored
// notification, through the operator's SMTP server (nodemailer), to the alert's recipients.
// Like every adapter it only delivers or throws: the outbox (outbox.ts) keeps the notification
// until the server accepted the message, and retries a refusal or a connection failure with
// its back-off. The Message-ID is derived from the outbox id, the same on every retry, so a
// mail system (or a reader) sees a repeat after a crash between "accepted" and "removed from
// the outbox" as the same message.
import nodemailer from 'nodemailer'
import type { NotificationAdapter } from './port.ts'

export interface SmtpSettings {
  host: string
  port: number
  /** `starttls`: upgrade required (port 587); `tls`: TLS from the first byte (465); `none`: plain text (a local relay only). */
  tls: 'starttls' | 'tls' | 'none'
  user?: string
  password?: string
  /** The sender address, e.g. "Lintel <alerts@example.com>". */
  from: string
  /** Connect, greeting and socket time-outs, ms; default 10,000. */
  timeoutMs?: number
  /** PEM file of the CA that signed the server's certificate, if not a public one. */
  caPem?: string
}

interface Payload {
  type: string
  alert: { id: number; name: string; project_id: number; dataPointID: string; attributes: Record<string, string> }
  event: { id: number; kind: string; level: string | null; previous_level: string | null; value: number | null; time: string; by?: string | null; comment?: string | null }
  coalesced?: number
}

const WHAT: Record<string, string> = { raise: 'raised', reset: 'reset', ack: 'acknowledged', clear: 'cleared' }

/** The subject and the plain-text body of one notification. */
export function emailText(payloadText: string): { subject: string; text: string } {
  const p = JSON.parse(payloadText) as Payload
  const e = p.event
  const level = e.level ? e.level.toUpperCase() : ''
  const subject = `[Lintel] ${level} ${WHAT[e.kind] ?? e.kind}: ${p.alert.name}`.replace(/\s+/g, ' ').slice(0, 200)
  const lines = [
    `Alert "${p.alert.name}" (id ${p.alert.id}, project ${p.alert.project_id}) was ${WHAT[e.kind] ?? e.kind}.`,
    '',
    `Datapoint: ${p.alert.dataPointID}`,
    ...(e.level ? [`Level: ${e.level}${e.previous_level ? ` (was ${e.previous_level})` : ''}`] : []),
    ...(e.value !== null ? [`Value: ${e.value}`] : []),
    `Time: ${e.time}`,
    ...(e.by ? [`By: ${e.by}`] : []),
    ...(e.comment ? [`Comment: ${e.comment}`] : []),
    ...(p.coalesced !== undefined ? [`This message stands for ${p.coalesced} events (the newest shown); GET /v2/project/${p.alert.project_id}/alert/${p.alert.id}/events lists them all.`] : []),
    ...Object.entries(p.alert.attributes).map(([k, v]) => `${k}: ${v}`),
    '',
    `Event ${e.id}`,
  ]
  return { subject, text: lines.join('\n') + '\n' }
}

export function emailAdapter(smtp: SmtpSettings, opts: { host?: string } = {}): NotificationAdapter {
  const timeout = smtp.timeoutMs ?? 10_000
  const transport = nodemailer.createTransport({
    host: smtp.host, port: smtp.port, secure: smtp.tls === 'tls', requireTLS: smtp.tls === 'starttls', ignoreTLS: smtp.tls === 'none',
    auth: smtp.user !== undefined ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
    connectionTimeout: timeout, greetingTimeout: timeout, socketTimeout: timeout,
    pool: true, maxConnections: 2,
    tls: smtp.caPem ? { ca: smtp.caPem } : undefined,
  })
  const idHost = opts.host ?? 'lintel.invalid'
  return {
    deliver: async (d, target) => {
      if (!target.email || target.email.to.length === 0) throw new Error('the alert has no e-mail recipients any more')
      const { subject, text } = emailText(d.payload)
      await transport.sendMail({
        from: smtp.from, to: target.email.to, subject, text,
        messageId: `<lintel-delivery-${d.id}@${idHost}>`,
        headers: { 'x-lintel-delivery': String(d.id), 'x-lintel-event': (JSON.parse(d.payload) as Payload).type },
      })
    },
    close: async () => { transport.close() },
  }
}
