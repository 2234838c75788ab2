// Configuration of the e-mail channel of alerts (issue 34 item 3; engine/notify/email.ts),
// read by server/config.ts. Without LINTEL_SMTP_HOST no e-mail is sent and an alert asking
// for one is refused (400).
//   LINTEL_SMTP_HOST      the SMTP server (a relay or the provider's submission host)
//   LINTEL_SMTP_PORT      its port (default 587 with starttls, 465 with tls, 25 with none)
//   LINTEL_SMTP_TLS       starttls (default: the connection must be upgraded), tls (TLS from
//                         the first byte), or none (plain text: a relay on the same host only)
//   LINTEL_SMTP_USER, LINTEL_SMTP_PASSWORD   the login, given together (none: no login)
//   LINTEL_SMTP_FROM      the sender, e.g. "Lintel <alerts@example.com>" (required with a host)
//   LINTEL_SMTP_CA_FILE   PEM file of the CA of the server's certificate, if not a public one
import { readFileSync } from 'node:fs'
import type { SmtpSettings } from '../engine/notify/email.ts'

type Source = Record<string, string | undefined>
type Int = (name: string, fallback: number, min: number, max: number) => number

const DEFAULT_PORT = { starttls: 587, tls: 465, none: 25 } as const

export function readSmtpConfig(source: Source, int: Int, problems: string[]): SmtpSettings | undefined {
  const host = source.LINTEL_SMTP_HOST
  const others = Object.keys(source).filter((k) => k.startsWith('LINTEL_SMTP_') && k !== 'LINTEL_SMTP_HOST')
  if (host === undefined) {
    if (others.length > 0) problems.push(`${others.join(', ')} ${others.length === 1 ? 'is' : 'are'} set but LINTEL_SMTP_HOST is not: set the SMTP server, or remove them`)
    return undefined
  }
  if (!/^[A-Za-z0-9.:[\]-]{1,253}$/.test(host)) problems.push(`LINTEL_SMTP_HOST must be a host name or address, got '${host}'`)
  const tls = source.LINTEL_SMTP_TLS ?? 'starttls'
  if (tls !== 'starttls' && tls !== 'tls' && tls !== 'none') problems.push(`LINTEL_SMTP_TLS must be one of starttls, tls, none, got '${tls}'`)
  const port = int('LINTEL_SMTP_PORT', DEFAULT_PORT[tls as keyof typeof DEFAULT_PORT] ?? 587, 1, 65535)
  const user = source.LINTEL_SMTP_USER
  const password = source.LINTEL_SMTP_PASSWORD
  if ((user === undefined) !== (password === undefined)) problems.push('LINTEL_SMTP_USER and LINTEL_SMTP_PASSWORD must be given together')
  const from = source.LINTEL_SMTP_FROM
  if (from === undefined || !/^[^\r\n]*<?[^\s@<>]+@[^\s@<>]+>?$/.test(from.trim())) problems.push(`LINTEL_SMTP_FROM must be the sender's address (e.g. "Lintel <alerts@example.com>"), got '${from ?? ''}'`)
  let caPem: string | undefined
  if (source.LINTEL_SMTP_CA_FILE !== undefined) {
    try { caPem = readFileSync(source.LINTEL_SMTP_CA_FILE, 'utf8') } catch (err) { problems.push(`LINTEL_SMTP_CA_FILE cannot be read: ${(err as Error).message}`) }
  }
  return { host, port, tls: tls as SmtpSettings['tls'], user, password, from: from ?? '', caPem }
}
