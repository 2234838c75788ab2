// The in-memory observation log: the log port's test double and reference adapter. It has
// the semantics of the Kafka adapter without a broker, and no production path runs it: the
// embedded default has no log at all (engine/observation-path/embedded.ts: ingest queue →
// store → bus), and the scaled mode runs Kafka. It serves the contract suite
// (test/engine/log-contract.ts, which Kafka must pass too), the tests of the scaled path's
// store group (test/engine/observation-path.test.ts) and bench/log-throughput.ts's baseline.
// A project maps to one of N partitions; each group commits a position per partition; a
// group's members share its partitions (reassigned when one joins or leaves), read from the
// committed position and commit after their handler resolved.
//
// Memory is bounded as Kafka's is, by retention rather than by consumption: a partition
// holds at most `retainObservations` observations (the oldest records go first, as Kafka's
// retention drops old segments), whatever the groups committed, so that a group that joins
// later still reads what is retained.
import type { Observation } from '../store/port.ts'
import { LogUnavailableError, type ConsumeOptions, type LogHandler, type LogRecord, type LogSubscription, type ObservationLog } from './port.ts'

export interface MemoryLogOptions {
  /** Number of partitions (default 6). */
  partitions?: number
  /** Observations a partition keeps at most (default 100 000; the newest record is always kept). */
  retainObservations?: number
}

const MAX_BACKOFF_MS = 30_000

class Partition {
  /** Offset of records[head]. */
  base = 0
  head = 0
  records: LogRecord[] = []
  observations = 0
  get end(): number { return this.base + this.records.length - this.head }
  at(offset: number): LogRecord { return this.records[this.head + offset - this.base] }
  append(r: LogRecord, retain: number): void {
    this.records.push(r)
    this.observations += r.observations.length
    while (this.observations > retain && this.end - this.base > 1) {
      this.observations -= this.records[this.head].observations.length
      this.head++
      this.base++
    }
    // Compact the array once the dropped prefix dominates.
    if (this.head > 1024 && this.head * 2 > this.records.length) { this.records = this.records.slice(this.head); this.head = 0 }
  }
}

class Group {
  readonly members: Member[] = []
  constructor(readonly committed: number[]) {}
}

export class MemoryObservationLog implements ObservationLog {
  private readonly parts: Partition[]
  private readonly groups = new Map<string, Group>()
  private readonly retain: number
  private closed = false

  constructor(options: MemoryLogOptions = {}) {
    const n = options.partitions ?? 6
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`partitions must be a positive integer, got ${n}`)
    this.parts = Array.from({ length: n }, () => new Partition())
    this.retain = options.retainObservations ?? 100_000
  }

  partitionOf(project: number): number {
    const n = this.parts.length
    return ((project % n) + n) % n
  }

  async publish(project: number, batch: readonly Observation[]): Promise<void> {
    if (this.closed) throw new LogUnavailableError('observation log is closed')
    if (!Number.isSafeInteger(project)) throw new TypeError(`project must be an integer, got ${project}`)
    if (batch.length === 0) return
    const part = this.parts[this.partitionOf(project)]
    part.append({ project, observations: batch.map((o) => ({ series: o.series, time: o.time, value: o.value })) }, this.retain)
    for (const g of this.groups.values()) for (const m of g.members) m.wake()
  }

  async consume(group: string, handler: LogHandler, options: ConsumeOptions = {}): Promise<LogSubscription> {
    if (this.closed) throw new LogUnavailableError('observation log is closed')
    let g = this.groups.get(group)
    if (!g) this.groups.set(group, g = new Group(this.parts.map((p) => p.base)))
    const member = new Member(this, g, handler, options)
    g.members.push(member)
    this.rebalance(g)
    member.run()
    return { stop: () => member.stop() }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    const all = [...this.groups.values()].flatMap((g) => g.members)
    await Promise.all(all.map((m) => m.stop()))
  }

  // --- used by Member ---------------------------------------------------------------

  /** Partitions assigned round-robin over the members in join order. */
  rebalance(g: Group): void {
    g.members.forEach((m, i) => {
      const mine = new Set<number>()
      for (let p = i; p < this.parts.length; p += g.members.length) mine.add(p)
      m.assign(mine)
    })
  }

  leave(g: Group, m: Member): void {
    const i = g.members.indexOf(m)
    if (i >= 0) { g.members.splice(i, 1); m.assign(new Set()); this.rebalance(g) }
  }

  /** Up to `max` records from the given positions, partition by partition. */
  take(positions: Map<number, number>, max: number): { records: LogRecord[]; next: Map<number, number> } {
    const records: LogRecord[] = []
    const next = new Map<number, number>()
    for (const [p, pos] of positions) {
      if (records.length >= max) break
      const part = this.parts[p]
      let off = Math.max(pos, part.base)
      while (off < part.end && records.length < max) records.push(part.at(off++))
      if (off !== pos) next.set(p, off)
    }
    return { records, next }
  }

  committedBy(g: Group, p: number, offset: number): void {
    if (offset > g.committed[p]) g.committed[p] = offset
  }
}

class Member {
  private positions = new Map<number, number>()
  private stopping = false
  private done: Promise<void> = Promise.resolve()
  private wakeUp: (() => void) | undefined
  private readonly max: number
  private readonly retryDelay: number

  constructor(private readonly log: MemoryObservationLog, private readonly group: Group,
    private readonly handler: LogHandler, private readonly options: ConsumeOptions) {
    this.max = options.maxRecords ?? 500
    this.retryDelay = options.retryDelayMs ?? 500
  }

  assign(partitions: Set<number>): void {
    const before = new Set(this.positions.keys())
    const revoked = [...before].filter((p) => !partitions.has(p))
    const assigned = [...partitions].filter((p) => !before.has(p))
    this.positions = new Map([...partitions].map((p) => [p, this.group.committed[p]]))
    if (revoked.length || assigned.length) this.options.onPartitions?.({ assigned, revoked })
    this.wake()
  }

  wake(): void {
    const w = this.wakeUp
    this.wakeUp = undefined
    w?.()
  }

  private sleep(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => this.wake(), ms)
      this.wakeUp = () => { clearTimeout(timer); resolve() }
    })
  }

  run(): void {
    this.done = this.loop().catch((err) => this.options.onError?.(err instanceof Error ? err : new Error(String(err))))
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const { records, next } = this.log.take(this.positions, this.max)
      if (records.length === 0) { await this.sleep(); continue }
      let delay = this.retryDelay
      for (;;) {
        try {
          await this.handler(records)
          break
        } catch (err) {
          this.options.onError?.(err instanceof Error ? err : new Error(String(err)))
          if (this.stopping) return
          await this.sleep(delay)
          if (this.stopping) return
          delay = Math.min(delay * 2, MAX_BACKOFF_MS)
        }
      }
      // Commit only what is still ours: a revoked partition goes to its new owner from the
      // group's committed position (it may see these records again: at-least-once).
      for (const [p, off] of next) {
        if (!this.positions.has(p)) continue
        this.log.committedBy(this.group, p, off)
        this.positions.set(p, Math.max(this.positions.get(p)!, off))
      }
    }
  }

  async stop(): Promise<void> {
    if (!this.stopping) {
      this.stopping = true
      this.wake()
    }
    await this.done
    this.log.leave(this.group, this)
  }
}

export function openMemoryLog(options: MemoryLogOptions = {}): MemoryObservationLog {
  return new MemoryObservationLog(options)
}
