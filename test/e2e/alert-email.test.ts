// The e-mail channel of alerts (issue 34 item 3) against an SMTP server this test starts
// (test/helpers/smtp-sink.ts): the platform is started twice on one data directory, in this
// process. Recipients, subject and body of each message; after a restart nothing is sent
// again; a server that refuses is retried with back-off and the failures are counted.
import t from 'tap'
import { loadConfig } from '../../server/config.ts'
import { start } from '../../server/main.ts'
import { basic } from '../helpers/platform.ts'
import { smtpSink } from '../helpers/smtp-sink.ts'
import { ensureRunTls } from '../helpers/tls-pair.ts'
import { waitFor } from '../helpers/wait.ts'

const ADMIN = { email: 'admin@mail.test', password: 'mail-admin-pass' }

async function platformOn(dir: string, extra: Record<string, string>) {
  const env = {
    LINTEL_DATA_DIR: dir, LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'silent',
    LINTEL_COMPANY_NAME: 'Mail', LINTEL_ADMIN_EMAIL: ADMIN.email, LINTEL_ADMIN_PASSWORD: ADMIN.password, LINTEL_ALERT_NOTIFY_INTERVAL_S: '0', ...await ensureRunTls(), ...extra,
  }
  const p = await start(loadConfig(env))
  const http = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(p.address! + path, { method, headers: { authorization: basic(ADMIN), ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) })
    return { status: res.status, body: await res.json() as any }
  }
  return { p, http }
}

t.test('recipients, subject and body; a restart sends nothing twice', async (t) => {
  const smtp = await smtpSink(t, { user: 'lintel', password: 'smtp-pass-1' })
  const dir = t.testdir()
  let { p, http } = await platformOn(dir, smtp.env)
  let running = true
  t.teardown(() => (running ? p.stop() : undefined))
  const pid = (await http('POST', '/v2/company/project', { name: 'HQ' })).body.resource.project.id
  const made = await http('POST', `/v2/alert/threshold?project_id=${pid}`, {
    name: 'AHU3 supply air', dataPointID: 'ahu3/supply_temp', thresholds: { warn: { upper: 26, upper_reset: 24 } },
    notification: { email: { to: ['ops@example.com', 'facility@example.com', 'ops@example.com'] } }, attributes: { building: 'HQ' },
  })
  t.equal(made.status, 201, JSON.stringify(made.body))
  t.same(made.body.resource.notification, { log: false, email: { to: ['ops@example.com', 'facility@example.com'] } }, 'recipients, each once')
  const id = made.body.resource.id
  for (const [to, why] of [[[], 'Invalid input: body/notification/email/to must NOT have fewer than 1 items'], [['ops@example.com>\r\nBcc: x@evil.test'], "notification.email.to[0]: 'ops@example.com>\r\nBcc: x@evil.test' is not an e-mail address"], [['no-at-sign'], "notification.email.to[0]: 'no-at-sign' is not an e-mail address"]] as const) {
    const bad = await http('POST', `/v2/alert/threshold?project_id=${pid}`, { name: 'bad', dataPointID: 'x', thresholds: { crit: { upper: 1 } }, notification: { email: { to } } })
    t.same([bad.status, bad.body.error], [400, why], JSON.stringify(to))
  }
  t.equal((await http('POST', `/v2/project/${pid}/timeseries`, { 'ahu3/supply_temp': [{ time: '2024-04-01T08:01:00Z', value: 27.5 }] })).status, 200)
  await waitFor(() => smtp.mails.length === 1, { what: 'the e-mail of the raise', timeoutMs: 30_000 })
  const [raise] = smtp.mails
  t.equal(raise.from, 'alerts@lintel.test')
  t.same(raise.to.sort(), ['facility@example.com', 'ops@example.com'])
  t.equal(raise.subject, '[Lintel] WARN raised: AHU3 supply air')
  t.match(raise.text, `Alert "AHU3 supply air" (id ${id}, project ${pid}) was raised.`)
  t.match(raise.text, 'Datapoint: ahu3/supply_temp\nLevel: warn\nValue: 27.5\nTime: 2024-04-01T08:01:00Z')
  t.match(raise.text, 'building: HQ')
  t.match(raise.messageId, /^<lintel-delivery-\d+@lintel\.invalid>$/)
  t.equal(raise.headers['x-lintel-event'], 'alert.raise')
  // Delivered means removed from the outbox: wait for that before the restart.
  await waitFor(async () => (await p.catalog!.alerts.outboxCount()) === 0, { what: 'the outbox to be empty' })

  running = false
  await p.stop()
  ;({ p, http } = await platformOn(dir, smtp.env))
  running = true
  // The next notification of the same alert arrives after anything the outbox re-sent (one lane, oldest first).
  t.equal((await http('POST', `/v2/project/${pid}/timeseries`, { 'ahu3/supply_temp': [{ time: '2024-04-01T08:05:00Z', value: 22 }] })).status, 200)
  await waitFor(() => smtp.mails.some((m) => m.subject.includes('reset')), { what: 'the e-mail of the reset', timeoutMs: 30_000 })
  t.same(smtp.mails.map((m) => m.subject), ['[Lintel] WARN raised: AHU3 supply air', '[Lintel] WARN reset: AHU3 supply air'], 'the raise was not sent again')
})

t.test('an SMTP server that refuses: retried with back-off, failures counted, delivered once it accepts', async (t) => {
  const smtp = await smtpSink(t)
  const { p, http } = await platformOn(t.testdir(), smtp.env)
  t.teardown(() => p.stop())
  const pid = (await http('POST', '/v2/company/project', { name: 'HQ' })).body.resource.project.id
  await http('POST', `/v2/alert/threshold?project_id=${pid}`, { name: 'Boiler', dataPointID: 'boiler/temp', thresholds: { crit: { upper: 90 } }, notification: { email: { to: ['ops@example.com'] } } })
  smtp.refuseNext(2)
  await http('POST', `/v2/project/${pid}/timeseries`, { 'boiler/temp': [{ time: '2024-04-01T08:00:00Z', value: 95 }] })
  await waitFor(() => smtp.mails.length === 1, { what: 'the e-mail after two refusals (back-off 1 s, then 2 s)', timeoutMs: 30_000 })
  // The sink holds the mail once it has read it; the outbox counts the delivery only when the
  // server's reply reaches the platform, a round trip later.
  await waitFor(() => p.alerts!.metrics().notifications!.pending === 0, { what: () => `the outbox to finish the delivery (${JSON.stringify(p.alerts!.metrics().notifications)})`, timeoutMs: 10_000 })
  t.equal(smtp.refused(), 2, 'refused twice')
  t.match(p.alerts!.metrics().notifications, { failed_attempts: 2, delivered: 1, pending: 0 }, 'the failures are counted (and scraped as lintel_alert_notifications_failed_total)')
  t.equal(smtp.mails[0].subject, '[Lintel] CRIT raised: Boiler')
})

t.test('without an SMTP server an alert asking for e-mail is refused, naming the field; bad recipients too', async (t) => {
  const { p, http } = await platformOn(t.testdir(), {})
  t.teardown(() => p.stop())
  const pid = (await http('POST', '/v2/company/project', { name: 'HQ' })).body.resource.project.id
  const mk = (email: unknown) => http('POST', `/v2/alert/threshold?project_id=${pid}`, { name: 'x', dataPointID: 'x', thresholds: { crit: { upper: 1 } }, notification: { email } })
  const res = await mk({ to: ['ops@example.com'] })
  t.same([res.status, res.body.error], [400, 'notification.email: this installation sends no e-mail (the operator has not configured an SMTP server: LINTEL_SMTP_HOST)'])
  t.equal((await http('GET', `/v2/project/${pid}/alerts`)).body.meta.total_items, 0, 'nothing created')
  t.throws(() => loadConfig({ LINTEL_SMTP_HOST: 'mail.example.com' }), /LINTEL_SMTP_FROM must be the sender's address/)
  t.throws(() => loadConfig({ LINTEL_SMTP_PORT: '25' }), /LINTEL_SMTP_PORT is set but LINTEL_SMTP_HOST is not/)
  t.throws(() => loadConfig({ LINTEL_SMTP_HOST: 'mail.example.com', LINTEL_SMTP_FROM: 'a@b.example', LINTEL_SMTP_TLS: 'ssl' }), /LINTEL_SMTP_TLS must be one of starttls, tls, none, got 'ssl'/)
  t.throws(() => loadConfig({ LINTEL_SMTP_HOST: 'mail.example.com', LINTEL_SMTP_FROM: 'a@b.example', LINTEL_SMTP_USER: 'u' }), /LINTEL_SMTP_USER and LINTEL_SMTP_PASSWORD must be given together/)
})
