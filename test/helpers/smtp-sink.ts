// An SMTP server for tests (the npm smtp-server package): it records every message it
// accepts (envelope recipients, headers, plain-text body) and can refuse recipients for a
// while (a mail system that is down or greylists), counting the refusals.
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import type { Test } from 'tap'

const require = createRequire(import.meta.url)
// smtp-server ships no types; the few members used here are typed below.
const { SMTPServer } = require('smtp-server') as { SMTPServer: new (o: object) => SmtpServerLike }
interface SmtpServerLike { listen(port: number, host: string, cb: () => void): { address(): AddressInfo }; close(cb: () => void): void; server: { address(): AddressInfo } }

export interface Mail { from: string; to: string[]; subject: string; messageId: string; headers: Record<string, string>; text: string }

/** Decodes a quoted-printable body (nodemailer encodes long lines so). */
const unQuote = (s: string) => s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)))

function parse(raw: string, from: string, to: string[]): Mail {
  const cut = raw.indexOf('\r\n\r\n')
  const head = raw.slice(0, cut).replace(/\r\n[ \t]+/g, ' ')
  const headers: Record<string, string> = {}
  for (const line of head.split('\r\n')) {
    const i = line.indexOf(':')
    if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim()
  }
  const body = raw.slice(cut + 4)
  const text = /quoted-printable/i.test(headers['content-transfer-encoding'] ?? '') ? unQuote(body) : body
  return { from, to, subject: headers.subject ?? '', messageId: headers['message-id'] ?? '', headers, text: text.replace(/\r\n/g, '\n') }
}

export async function smtpSink(t: Test, opts: { user?: string; password?: string } = {}) {
  const mails: Mail[] = []
  let refuse = 0
  let refused = 0
  const server = new SMTPServer({
    secure: false, disabledCommands: opts.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'], allowInsecureAuth: true, authOptional: !opts.user, logger: false,
    onAuth: (auth: { username: string; password: string }, _s: unknown, cb: (e: Error | null, r?: object) => void) =>
      auth.username === opts.user && auth.password === opts.password ? cb(null, { user: auth.username }) : cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 })),
    onRcptTo: (_a: unknown, _s: unknown, cb: (e?: Error | null) => void) => {
      if (refuse > 0) {
        refuse--
        refused++
        return cb(Object.assign(new Error('Mailbox unavailable, try again later'), { responseCode: 451 }))
      }
      cb()
    },
    onData: (stream: NodeJS.ReadableStream, session: { envelope: { mailFrom: { address: string }; rcptTo: { address: string }[] } }, cb: (e?: Error | null) => void) => {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        mails.push(parse(Buffer.concat(chunks).toString('utf8'), session.envelope.mailFrom.address, session.envelope.rcptTo.map((r) => r.address)))
        cb()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = server.server.address().port
  t.teardown(() => new Promise<void>((resolve) => server.close(resolve)))
  return {
    port, mails,
    /** Refuses the next `n` recipients with 451 (the sender retries). */
    refuseNext: (n: number) => { refuse = n },
    refused: () => refused,
    /** The environment of a platform that sends through this server. */
    env: { LINTEL_SMTP_HOST: '127.0.0.1', LINTEL_SMTP_PORT: String(port), LINTEL_SMTP_TLS: 'none', LINTEL_SMTP_FROM: 'Lintel <alerts@lintel.test>', ...(opts.user ? { LINTEL_SMTP_USER: opts.user, LINTEL_SMTP_PASSWORD: opts.password ?? '' } : {}) },
  }
}
