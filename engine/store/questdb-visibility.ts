// When a write to the QuestDB store becomes visible (questdb-store.ts): the table is a WAL
// table, applied asynchronously after the write is durable.
// - append() resolves when the rows are durable AND visible to reads. A WAL table applies
//   writes asynchronously: the ILP/HTTP request returns once the transaction is committed to
//   the table's WAL and sequencer (durable), and a background job applies it to the table
//   later. So after each flush the store reads wal_tables() for this table: sequencerTxn
//   at that moment is >= the flush's transaction, and the appends of that flush resolve
//   when writerTxn (the last transaction applied and visible) reaches it. One poller serves
//   all waiters (one /exec request per poll, a few ms apart). A suspended table rejects
//   the waiters with QuestDB's error; no progress within visibleTimeoutMs rejects them with
//   OverloadedError (503).
import { OverloadedError } from '../../core/errors.ts'
import type { QuestdbHttp, Row } from './questdb-http.ts'
import { walStatusSql } from './questdb-sql.ts'

interface Waiter {
  /** sequencerTxn to reach; undefined until a status read that started after the write. */
  target: number | undefined
  deadline: number
  resolve: () => void
  reject: (err: Error) => void
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export class WalVisibility {
  private readonly waiters: Waiter[] = []
  private polling = false

  /** `onIdle` runs when the last waiter has settled. */
  constructor (private readonly http: QuestdbHttp, private readonly table: string, private readonly timeoutMs: number, private readonly onIdle: () => void) {}

  /** Whether a write still waits to become visible. */
  get waiting(): boolean { return this.waiters.length > 0 }

  /** Resolves when everything committed to the table's sequencer before now is applied. */
  wait(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ target: undefined, deadline: Date.now() + this.timeoutMs, resolve, reject })
      if (!this.polling) void this.poll()
    })
  }

  private async poll(): Promise<void> {
    this.polling = true
    let pause = 1
    try {
      while (this.waiters.length > 0) {
        // Waiters registered before this request went out get its sequencerTxn as target.
        const untargeted = this.waiters.filter((w) => w.target === undefined)
        let status: Row | undefined
        try {
          [status] = await this.http.exec(walStatusSql(this.table))
        } catch (err) {
          this.rejectWaiters(this.waiters.slice(), err as Error)
          break
        }
        if (!status) {
          this.rejectWaiters(this.waiters.slice(), new Error(`QuestDB table '${this.table}' is not listed by wal_tables() (dropped?)`))
          break
        }
        const [writerTxn, sequencerTxn, suspended, errorMessage] = status as [number, number, boolean, string]
        for (const w of untargeted) w.target = sequencerTxn
        const now = Date.now()
        let progressed = false
        for (let i = 0; i < this.waiters.length; i++) {
          const w = this.waiters[i]
          if (w.target !== undefined && writerTxn >= w.target) {
            this.waiters.splice(i--, 1)
            w.resolve()
            progressed = true
          } else if (suspended) {
            this.waiters.splice(i--, 1)
            w.reject(new Error(`QuestDB table '${this.table}' is suspended (${errorMessage || 'WAL apply failed'}): writes are durable but not applied; see ALTER TABLE ${this.table} RESUME WAL`))
          } else if (now > w.deadline) {
            this.waiters.splice(i--, 1)
            w.reject(new OverloadedError(`QuestDB has not applied the write to '${this.table}' within ${this.timeoutMs} ms (writerTxn ${writerTxn} < ${w.target}); it is durable and will become visible; retry reads later`))
          }
        }
        if (this.waiters.length === 0) break
        pause = progressed ? 1 : Math.min(pause * 2, 25)
        await sleep(pause)
      }
    } finally {
      this.polling = false
      if (this.waiters.length > 0) void this.poll()
      else this.onIdle()
    }
  }

  private rejectWaiters(ws: Waiter[], err: Error): void {
    for (const w of ws) {
      const i = this.waiters.indexOf(w)
      if (i >= 0) this.waiters.splice(i, 1)
      w.reject(err)
    }
  }
}
