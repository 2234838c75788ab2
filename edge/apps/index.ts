// Controls apps on the edge agent (issue 31 item 3), put together: the apps on disk in the
// state directory (disk.ts), the durable outbox (outbox.ts), the runner (runner.ts) writing
// through the conflict-watching driver (write-watch.ts), and its own MQTT link (link.ts).
// `lintel edge --state-dir DIR` starts it (main.ts); without a state directory the agent
// runs no apps. The runner starts from disk before any broker is reached.
import { mkdirSync } from 'node:fs'
import type { Clock } from '../../core/clock/clock.ts'
import { AppDisk } from './disk.ts'
import { startAppLink, type AppLink, type AppLinkOptions } from './link.ts'
import { Outbox } from './outbox.ts'
import { AppRunner } from './runner.ts'
import type { WriteWatch } from './write-watch.ts'

export { WriteWatch } from './write-watch.ts'

export interface EdgeAppsOptions extends AppLinkOptions {
  stateDir: string
  /** The agent's driver, wrapped: the NEWSPT handler must write through the same watch. */
  driver: WriteWatch
  clock: Clock
}

export interface EdgeApps {
  runner: AppRunner
  outbox: Outbox
  link: AppLink
  stop(): Promise<void>
}

export function startEdgeApps(o: EdgeAppsOptions): EdgeApps {
  mkdirSync(o.stateDir, { recursive: true })
  const disk = new AppDisk(o.stateDir)
  let runner: AppRunner | undefined
  const outbox = new Outbox(o.stateDir, () => runner?.saveAll())
  runner = new AppRunner({ driver: o.driver, clock: o.clock, disk, outbox, log: o.log })
  runner.load()
  const link = startAppLink(o, runner, outbox)
  const r = runner
  return {
    runner: r, outbox, link,
    stop: async () => {
      await link.stop()
      await r.stop()
    },
  }
}
