// The log adapter of the notification port: one structured line per notification (pino),
// for installations without a receiver and for audits. Never fails.
import type { NotificationAdapter, NotifyLog } from './port.ts'

export function logAdapter(log: NotifyLog): NotificationAdapter {
  return {
    deliver: async (d) => {
      log.info({ alert_id: d.alertId, delivery: d.id, notification: JSON.parse(d.payload) }, 'alert notification')
    },
  }
}
