// Controls apps on the configured agent (issue 31 on real plant; `lintel edge --config FILE`):
// the same runner as the simulated agent's (edge/apps/), writing through the configured
// drivers, so an app writes
//   Modbus   through the agent's own 16-level priority array (drivers/priority-store.ts): the
//            app's level (priority, default 13) is set, null clears it, the winner goes to the
//            register;
//   BACnet   WriteProperty of the present value at the app's priority, null relinquishes.
// The apps and their unsent logs live in the configuration's state_dir (`apps/`,
// `outbox.ndjson`, `outbox.sent`) beside the buffer and the priority arrays, and are reloaded
// by the next start (SIGKILL included). The link logs in with the broker account of the
// configuration (its client id, if one is set, gets `-apps`).
import type { Clock } from '../../core/clock/clock.ts'
import { startEdgeApps, type EdgeApps, type WriteWatch } from '../apps/index.ts'
import type { EdgeConfig } from '../config/schema.ts'

export function startPlantApps(config: EdgeConfig, o: { driver: WriteWatch; password: string; ca?: Buffer; clock: Clock; log: (m: string) => void }): EdgeApps {
  const { broker } = config
  return startEdgeApps({
    url: broker.url, ca: o.ca, username: broker.account, password: o.password, clientId: broker.client_id,
    group: broker.project.group, handle: broker.project.handle, stateDir: config.state_dir, driver: o.driver, clock: o.clock, log: o.log,
  })
}
