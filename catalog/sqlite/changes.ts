// The SQLite repository of catalog/changes.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/changes.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import type { ChangePayload, ChangesPort } from '../port.ts'
import { encodeChange, type Listener, Subscribers } from '../changes.ts'

/** The SQLite adapter's changes: one process, delivered on the next turn of the event loop. */
export class LocalChanges implements ChangesPort {
  private readonly subscribers = new Subscribers()

  async publish(topic: string, payload: ChangePayload = {}): Promise<void> {
    encodeChange(topic, payload) // the same limits as across processes
    setImmediate(() => this.subscribers.deliver(topic, payload))
  }

  subscribe(topic: string, fn: Listener): () => void {
    return this.subscribers.add(topic, fn)
  }
}
