// The apps the edge keeps on its own disk (issue 31 item 3: reloaded after the agent's own
// restart, kill -9 included): one JSON file per app in `<state dir>/apps/`, replaced whole
// (written beside, then renamed), so a crash leaves the old or the new file, never half of one.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AppDef, AppState } from '../../protocol/controls-app-messages.ts'

export interface StoredApp {
  def: AppDef
  state: AppState
  reason?: string
  /** The last seq used for an APPLOG of this app (the next is seq + 1). */
  seq: number
  /** Stopped by the alive time-out (not by the platform): auto-recovery restarts it. */
  suspended?: boolean
}

export class AppDisk {
  private readonly dir: string

  constructor (stateDir: string) {
    this.dir = join(stateDir, 'apps')
    mkdirSync(this.dir, { recursive: true })
  }

  /** Every stored app; a file that cannot be read is named in `broken` and skipped. */
  load(): { apps: StoredApp[]; broken: string[] } {
    const apps: StoredApp[] = []; const broken: string[] = []
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue
      try {
        apps.push(JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as StoredApp)
      } catch (err) {
        broken.push(`${name}: ${(err as Error).message}`)
      }
    }
    return { apps, broken }
  }

  save(app: StoredApp): void {
    const file = this.file(app.def.app_id)
    writeFileSync(file + '.tmp', JSON.stringify(app))
    renameSync(file + '.tmp', file)
  }

  remove(appId: string): void {
    rmSync(this.file(appId), { force: true })
  }

  private file(appId: string): string {
    return join(this.dir, encodeURIComponent(appId) + '.json')
  }
}
