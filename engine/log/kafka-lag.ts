// The consumer lag of one member of a Kafka consumer group (kafka-member.ts), per partition it
// owns: the partition's high watermark minus the next offset the member has not yet handled
// (stored, for the store group). Read at each scrape of the operator's metrics from what the
// client already knows, so a scrape costs no broker round trip:
// - the high watermark from getWatermarkOffsets(), which librdkafka updates from every fetch
//   response (also the log start offset: a group without a commit starts there);
// - the handled offsets, from the member's own loop (they are committed right after);
// - before the member handled anything of a partition it gained, the group's committed
//   offset, asked once per assignment (committed(): one OffsetFetch per rebalance).
// A partition appears once both ends are known and disappears when it is revoked. While the
// handler is stuck (the store down), librdkafka stops fetching once its prefetch queue is full
// (queued.max.messages.kbytes or queued.min.messages), so the watermark, and the lag, stop
// growing there (tried: with a 1 KB queue, 200 records published behind a held handler showed
// a lag of 36, then 0 once released).
import type { RdConsumer, RdTopicPartition } from './kafka-rdkafka.ts'
import type { PartitionLag } from './port.ts'

const COMMITTED_TIMEOUT_MS = 5_000

interface Owned extends RdTopicPartition {
  /** Next offset not yet handled; undefined until the committed offset is known. */
  next?: number
}

export class ConsumerLag {
  private readonly owned = new Map<string, Owned>()

  constructor(private readonly consumer: RdConsumer, private readonly report: (err: Error) => void) {}

  /** Partitions gained: their committed offsets are asked for once. */
  assigned(parts: RdTopicPartition[]): void {
    const gained = parts.filter((p) => !this.owned.has(key(p))).map((p) => ({ topic: p.topic, partition: p.partition }))
    for (const p of gained) this.owned.set(key(p), p)
    if (gained.length === 0) return
    try {
      this.consumer.committed(gained, COMMITTED_TIMEOUT_MS, (err, offsets) => {
        if (err) { this.report(new Error(`Kafka committed offsets unknown (the lag of these partitions shows once records are handled): ${err.message}`)); return }
        for (const o of offsets ?? []) {
          const p = this.owned.get(key(o))
          // No commit yet (no offset, or -1001): the group starts at the oldest record (auto.offset.reset).
          const committed = Number.isSafeInteger(o.offset) ? o.offset : 0
          if (p && gained.includes(p)) p.next = Math.max(p.next ?? 0, committed)
        }
      })
    } catch (err) { this.report(err as Error) }
  }

  revoked(parts: RdTopicPartition[]): void {
    for (const p of parts) this.owned.delete(key(p))
  }

  /** The member's handler resolved for records of `p` up to `next` (exclusive). */
  handled(p: RdTopicPartition, next: number): void {
    const o = this.owned.get(key(p))
    if (o) o.next = Math.max(o.next ?? 0, next)
  }

  /** Lag of every owned partition whose ends are known, in partition order. */
  now(): PartitionLag[] {
    const out: PartitionLag[] = []
    for (const p of this.owned.values()) {
      if (p.next === undefined) continue
      let w: { lowOffset: number; highOffset: number }
      try {
        w = this.consumer.getWatermarkOffsets(p.topic, p.partition)
      } catch { continue } // disconnected, or the partition not yet known to the client
      if (w.highOffset < 0) continue // not fetched yet
      out.push({ topic: p.topic, partition: p.partition, records: Math.max(0, w.highOffset - Math.max(p.next, w.lowOffset)) })
    }
    return out.sort((a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition)
  }
}

const key = (p: RdTopicPartition) => `${p.topic}\0${p.partition}`
