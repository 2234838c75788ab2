// Why the broker refused or dropped something, for the operator and the device's owner
// (issue 15, "a refused MQTT publish gives no reason anywhere"): one info line naming the
// account, the topic and the reason. At most one line per account and reason per interval,
// with the number suppressed since, so a misbehaving device cannot flood the log.
import { LRUCache } from 'lru-cache'

export interface InfoLog { info(obj: object, msg: string): void }

export class RefusalLog {
  private readonly last = new LRUCache<string, { at: number; suppressed: number }>({ max: 10_000 })

  constructor (private readonly log: InfoLog, private readonly intervalMs = 10_000, private readonly now: () => number = Date.now) {}

  refused(who: { username: string; projectId?: number; address?: string }, topic: string | undefined, reason: string, what = 'mqtt: publish refused'): void {
    const key = `${who.username}\0${what}\0${reason.split(':')[0]}`
    const now = this.now()
    const prev = this.last.get(key)
    if (prev && now - prev.at < this.intervalMs) { prev.suppressed++; return }
    this.last.set(key, { at: now, suppressed: 0 })
    this.log.info({ username: who.username, project_id: who.projectId, address: who.address, topic, reason, suppressed_since_last: prev?.suppressed ?? 0 }, what)
  }
}
