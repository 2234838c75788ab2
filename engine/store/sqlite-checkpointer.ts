// The checkpointer worker of the SQLite store: copies committed WAL frames into the database
// file (PRAGMA wal_checkpoint(PASSIVE)) every CHECKPOINT_MS on its own connection, beside the
// writer. A checkpoint is page copies plus two fsyncs; run by the writer after a commit (SQLite's
// automatic checkpoint) it held every append waiting behind it. Measured with bench:vdp (no
// checkpoints at all vs SQLite's every 32 MiB): p99 from acknowledged input to readable output
// 39 ms against 88 ms at full speed over HTTP, 55 against 132 ms at 100,000/s offered.
//
// PASSIVE never waits for the writer or the readers, so it cannot stall them. But the WAL can
// only start over once every frame is copied while no transaction runs, which a continuous
// stream of appends never allows: the writer keeps SQLite's own checkpoint as well
// (sqlite-schema.ts), which finds most frames copied already. What is left for it are the
// frames since this worker's last pass, and it fsyncs them (~1 ms per MB on this machine):
// every 100 ms, at ~100 MB/s of WAL under bench:vdp's load, that held the appends for 40-60 ms
// about every 300 ms, the largest part of the p99. Every 25 ms it is a quarter of that
// (with a 2x larger ingest tail, sqlite-writer.ts TAIL_ROWS: p99 at 100,000/s 30-43 ms
// against 72-85, 5 pairs).
import { parentPort, workerData } from 'node:worker_threads'
import { Database } from '../../core/sqlite-driver.ts'

export const CHECKPOINT_MS = 25

export type CheckpointerRequest = { op: 'close' }
export type CheckpointerReply = { ok: true; ready?: true; closed?: true } | { ok: false; message: string }

function mustBeWorker(): never { throw new Error('sqlite-checkpointer.ts must run in a worker thread') }
const port = parentPort ?? mustBeWorker()

try {
  const db = new Database((workerData as { file: string }).file, { fileMustExist: true })
  db.pragma('busy_timeout = 5000')
  let failing = false
  const timer = setInterval(() => {
    try {
      db.pragma('wal_checkpoint(PASSIVE)')
      failing = false
    } catch (err) {
      // Reported once per run of failures; the writer's own checkpoint still runs.
      if (!failing) port.postMessage({ ok: false, message: `checkpoint failed: ${err instanceof Error ? err.message : String(err)}` } satisfies CheckpointerReply)
      failing = true
    }
  }, CHECKPOINT_MS)
  port.on('message', (req: CheckpointerRequest) => {
    if (req.op !== 'close') return
    clearInterval(timer)
    try { db.close() } catch { /* the writer's connection checkpoints at its own close */ }
    port.postMessage({ ok: true, closed: true } satisfies CheckpointerReply)
    port.close()
  })
  port.postMessage({ ok: true, ready: true } satisfies CheckpointerReply)
} catch (err) {
  port.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) } satisfies CheckpointerReply)
  port.close()
}
