// Controls-app reports across processes (scaled mode, issue 31 item 5), as setpoint answers
// travel (setpoint-relay.ts): APPDEF goes out through the same publish-only cluster node; the
// reports a broker node validated (APPSTATE, APPLOG, APPSYNC from the project's edge accounts,
// broker.ts) are forwarded on an internal Redis pub/sub channel that no MQTT client can reach,
// and every API process listens. Several API processes hear each report: the service's
// compare-and-set changes and the (app, seq) key of log entries record each once; an APPSYNC
// is answered by each of them (the edge keeps the highest revision, so a repeated APPDEF is harmless).
import type { Subscription } from 'rxjs'
import type { ControlsAppService } from '../../engine/controls/service.ts'
import type { ControlsMessage } from '../../protocol/controls-message.ts'
import type { Broker, RoutedControls } from './broker.ts'
import { deliverAppReport, isAppReport } from './controls-app-link.ts'
import { redis } from './setpoint-relay.ts'

/** The internal channel of validated controls-app reports (Redis pub/sub, not MQTT). */
export const APP_REPORTS_CHANNEL = 'lintel:controls-app-reports'

interface ForwardedReport { projectId: number; username: string; message: ControlsMessage }

/** A broker node: forwards the controls-app reports it validated to the API processes. */
export function forwardAppReports(controls: Broker['controls'], redisUrl: string, onError: (err: unknown) => void): { close(): void } {
  const pub = redis(redisUrl)
  pub.on('error', onError)
  const sub: Subscription = controls.subscribe((c: RoutedControls) => {
    if (!isAppReport(c.message)) return
    const out: ForwardedReport = { projectId: c.projectId, username: c.username, message: c.message }
    pub.publish(APP_REPORTS_CHANNEL, JSON.stringify(out)).catch(onError)
  })
  return { close: () => { sub.unsubscribe(); pub.disconnect() } }
}

/** An API process without the broker role: hears the reports the broker nodes forward. */
export async function listenAppReports(redisUrl: string, service: ControlsAppService, log: { warn(obj: object, msg: string): void }): Promise<{ close(): void }> {
  const sub = redis(redisUrl)
  sub.on('error', (err) => log.warn({ err }, 'controls apps: report channel'))
  sub.on('message', (channel, text) => {
    if (channel !== APP_REPORTS_CHANNEL) return
    let r: ForwardedReport
    try {
      r = JSON.parse(text) as ForwardedReport
    } catch (err) {
      return log.warn({ err }, 'controls apps: forwarded report is not JSON')
    }
    const src = { projectId: r.projectId, username: r.username }
    deliverAppReport(service, src, r.message, (why) => log.warn(src, `controls apps: report dropped: ${why}`))
      .catch((err) => log.warn({ err, ...src }, 'controls apps: report not recorded'))
  })
  await sub.subscribe(APP_REPORTS_CHANNEL)
  return { close: () => sub.disconnect() }
}
