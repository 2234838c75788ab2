// The broker's CONTROLS hand-off to the controls-app service (issue 31 item 3): APPDEF out;
// APPSTATE, APPLOG and APPSYNC in. The engine's service knows no wire format; this link
// encodes its deployments with protocol/controls-app-messages.ts, publishes them on the
// project's CONTROLS topic (QoS 1, as NEWSPT), and decodes the edge's reports from the broker's
// controls stream, which carries them only from the project's designated edge accounts
// (broker.ts). Scaled mode: the same reports arrive over Redis (controls-app-relay.ts).
import type { Subscription } from 'rxjs'
import type { Catalog } from '../../catalog/index.ts'
import type { AppDeployment, ControlsAppService, EdgeSource } from '../../engine/controls/service.ts'
import type { ScheduleConfig } from '../../core/schedule/index.ts'
import type { HolidayRule } from '../../core/schedule/index.ts'
import { APPLOG, APPSTATE, APPSYNC, appDef, readAppLog, readAppState, readAppSync } from '../../protocol/controls-app-messages.ts'
import type { ControlsMessage } from '../../protocol/controls-message.ts'
import type { Broker } from './broker.ts'

/** The service's publish: APPDEF on CONTROLS/<group>/<handle> of the project. */
export function appPublisher(broker: Pick<Broker, 'publish'>, catalog: Catalog) {
  return async (projectId: number, d: AppDeployment): Promise<void> => {
    const p = await catalog.projects.settings(projectId)
    const message = appDef({
      app_id: d.app_id, revision: d.revision, desired: d.desired, algorithm: 'schedule', zone: d.zone, pins: d.pins,
      ...(d.variation !== undefined ? { variation: d.variation } : {}),
      configuration: d.configuration as unknown as ScheduleConfig, holidays: d.holidays as HolidayRule[],
    })
    // A delete of an app the platform no longer knows has no configuration to send.
    if (d.configuration === undefined) {
      delete (message as Partial<typeof message>).configuration
      delete (message as Partial<typeof message>).holidays
    }
    await broker.publish(`CONTROLS/${p.load_balancing_group}/${p.project_handle}`, Buffer.from(JSON.stringify(message)))
  }
}

/** Whether a CONTROLS message is a report of the edge to the controls-app service. */
export const isAppReport = (m: ControlsMessage): boolean => m.type === APPSTATE || m.type === APPLOG || m.type === APPSYNC

/** Decodes one report and hands it to the service; an undecodable one is counted and logged, nothing moves. */
export async function deliverAppReport(service: ControlsAppService, src: EdgeSource, m: ControlsMessage, log: (why: string) => void): Promise<void> {
  const o = m as Record<string, unknown>
  if (m.type === APPSTATE) {
    const r = readAppState(o)
    return r.ok ? service.onState(src, r.message) : log(r.error)
  }
  if (m.type === APPLOG) {
    const r = readAppLog(o)
    return r.ok ? service.onLog(src, [r.message]) : log(r.error)
  }
  if (m.type === APPSYNC) {
    const r = readAppSync(o)
    if (!r.ok) return log(r.error)
    await service.onSync(src, r.message.apps)
  }
}

/** Feeds the edge's reports from the broker in this process to the service. */
export function linkAppReports(broker: Pick<Broker, 'controls'>, service: ControlsAppService, log: { warn(obj: object, msg: string): void }): Subscription {
  return broker.controls.subscribe((c) => {
    if (!isAppReport(c.message)) return
    const src = { projectId: c.projectId, username: c.username }
    deliverAppReport(service, src, c.message, (why) => log.warn(src, `controls apps: report dropped: ${why}`))
      .catch((err) => log.warn({ err, ...src }, 'controls apps: report not recorded'))
  })
}
