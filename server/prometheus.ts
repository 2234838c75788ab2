// The operator's Prometheus metrics of one process (issue 34 item 4), with prom-client. Off by
// default: server/runtimes.ts starts the listener (prometheus-listener.ts) only with
// LINTEL_METRICS_PORT. GET /v2/system/metrics stays the company's view of its own projects;
// this is the whole process, for the operator only.
//
// The counters that exist are read at scrape time, not counted twice: the ingest queue
// (path.metrics()), the MQTT broker (broker.metrics()), the alert runtime and its notifier
// (alerts.metrics()). What had no counter is measured where the composition root hands a port
// on: ingest per transport (each transport gets its own counting Ingest), store reads (a
// timing wrapper), virtual datapoint outputs (their Ingest), and the SQLite writer's own
// report of commits, compaction steps and the ingest tail (StoreObserver), the QuestDB store's
// of its commits, and the Kafka consumer's lag (engine/log/kafka-lag.ts). docs/metrics.md
// names every metric.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Ingest } from '../engine/ingest-port.ts'
import type { PartitionLag } from '../engine/log/port.ts'
import type { StoreObserver, TimeseriesStore } from '../engine/store/port.ts'

/** What the scrape reads from the parts that run in this process (undefined: not running here). */
export interface MetricSources {
  path?: () => Record<string, number>
  broker?: () => Record<string, number> | undefined
  /** Scaled, on a worker: its member of the store group's lag per partition it owns. */
  consumerLag?: () => PartitionLag[]
  alerts?: () => { evaluated: number; raised: number; reset: number; running: number; notifications_held: number; notifications?: { delivered: number; failed_attempts: number; dropped: number; undeliverable: number; pending: number } } | undefined
}

export type Transport = 'http' | 'import' | 'mqtt' | 'vdp'

/** The broker's refusal counters (ingest/mqtt/counters.ts) and the reason label each gets. */
const MQTT_REFUSALS: Record<string, string> = {
  connections_refused: 'login', connections_throttled: 'throttled', connections_preauth_refused: 'preauth_limit',
  connections_preauth_timeout: 'preauth_timeout', subscriptions_refused: 'subscription', packets_oversize: 'packet_size',
  lines_dropped: 'bad_line', lines_outside_grant: 'outside_grant',
}

const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export class LintelMetrics {
  readonly registry = new Registry()
  private sources: MetricSources = {}
  private readonly ingested: Counter<'transport'>
  private readonly commit: Histogram
  private readonly compaction: Histogram
  private readonly tail: Gauge
  private readonly reads: Histogram<'kind'>
  private readonly vdpOutputs: Counter
  private readonly vdpLag: Gauge
  private readonly retentionRows: Counter
  private readonly retentionSweep: Histogram

  constructor () {
    const r = this.registry
    this.ingested = new Counter({ name: 'lintel_ingest_observations_total', help: 'Observations accepted (stored, or accepted by the log in scaled mode), per transport', labelNames: ['transport'], registers: [r] })
    for (const t of ['http', 'import', 'mqtt', 'vdp'] as const) this.ingested.inc({ transport: t }, 0) // every series exists from the start
    this.commit = new Histogram({ name: 'lintel_store_commit_seconds', help: 'Duration of one commit of appends by the store: a group commit of the SQLite writer, or one ILP request to QuestDB until its rows are visible', buckets: SECONDS, registers: [r] })
    this.compaction = new Histogram({ name: 'lintel_store_compaction_seconds', help: 'Duration of one compaction step of the ingest tail into the main table and rollups', buckets: SECONDS, registers: [r] })
    this.tail = new Gauge({ name: 'lintel_store_ingest_tail_rows', help: 'Rows in the SQLite store\'s ingest tail, not yet compacted', registers: [r] })
    this.reads = new Histogram({ name: 'lintel_store_read_seconds', help: 'Duration of store reads: raw ranges and sampled (bucket) reads', labelNames: ['kind'], buckets: SECONDS, registers: [r] })
    this.vdpOutputs = new Counter({ name: 'lintel_vdp_outputs_total', help: 'Outputs written by virtual datapoints (their evaluation rate)', registers: [r] })
    this.vdpLag = new Gauge({ name: 'lintel_vdp_output_lag_seconds', help: 'Wall-clock time minus the event time of the newest output of the last batch written by virtual datapoints', registers: [r] })
    this.retentionRows = new Counter({ name: 'lintel_retention_rows_removed_total', help: 'Rows (raw observations and rollup rows) removed by retention sweeps', registers: [r] })
    this.retentionSweep = new Histogram({ name: 'lintel_retention_sweep_seconds', help: 'Duration of a retention sweep that removed rows', buckets: [...SECONDS, 30, 60, 300], registers: [r] })
    this.mirrored()
  }

  /** A retention sweep that removed rows (engine/retention/). */
  retentionSwept(rows: number, seconds: number): void {
    this.retentionRows.inc(rows)
    this.retentionSweep.observe(seconds)
  }

  /** The parts of this process whose counters the scrape reads, and the process's own (CPU, memory, event-loop lag, GC). Once, when the listener starts. */
  readFrom(sources: MetricSources): void {
    if (Object.keys(this.sources).length === 0) collectDefaultMetrics({ register: this.registry })
    this.sources = { ...this.sources, ...sources }
  }

  /** The SQLite writer's reports. */
  storeObserver(): StoreObserver {
    return {
      commit: (s) => this.commit.observe(s),
      compaction: (s) => this.compaction.observe(s),
      tailRows: (n) => this.tail.set(n),
    }
  }

  /** An Ingest that counts what it accepted for `transport`. */
  counting(ingest: Ingest, transport: Transport): Ingest {
    return async (projectId, batch) => {
      await ingest(projectId, batch)
      this.ingested.inc({ transport }, batch.length)
      if (transport === 'vdp' && batch.length > 0) {
        this.vdpOutputs.inc(batch.length)
        let newest = batch[0].time
        for (const o of batch) if (o.time > newest) newest = o.time
        this.vdpLag.set(Math.max(0, Date.now() / 1000 - newest / 1e6))
      }
    }
  }

  /** The store with its reads timed (every other member as it is, optional ones only when present). */
  timedReads(store: TimeseriesStore): TimeseriesStore {
    const time = <A extends unknown[], R>(kind: string, fn: (...a: A) => Promise<R>) => async (...a: A): Promise<R> => {
      const end = this.reads.startTimer({ kind })
      try { return await fn(...a) } finally { end() }
    }
    const timed: Partial<TimeseriesStore> = {
      read: time('raw', store.read.bind(store)),
      sample: time('sample', store.sample.bind(store)),
      ...(store.readAnswer ? { readAnswer: time('raw', store.readAnswer.bind(store)) } : {}),
      ...(store.sampleAnswer ? { sampleAnswer: time('sample', store.sampleAnswer.bind(store)) } : {}),
    }
    // Every other member (those of other ports' additions too) goes to the store itself, bound to it.
    return new Proxy(store, {
      get: (target, prop) => {
        if (Object.hasOwn(timed, prop)) return timed[prop as keyof TimeseriesStore]
        const v = Reflect.get(target, prop)
        return typeof v === 'function' ? v.bind(target) : v
      },
    })
  }

  /** Metrics read from the existing counters at each scrape. */
  private mirrored(): void {
    const r = this.registry
    const src = () => this.sources
    const gauge = (name: string, help: string, value: () => number | undefined) =>
      new Gauge({ name, help, registers: [r], collect () { const v = value(); if (v !== undefined) this.set(v) } })
    const counter = (name: string, help: string, value: () => number | undefined) =>
      new Counter({ name, help, registers: [r], collect () { const v = value(); if (v !== undefined) { this.reset(); this.inc(v) } } })
    gauge('lintel_ingest_queue_pending', 'Observations in the embedded ingest queue, accepted and not yet committed', () => src().path?.().pending)
    counter('lintel_ingest_queue_backpressure_waits_total', 'Times an ingest had to wait for room in the full ingest queue', () => src().path?.().backpressure_waits)
    counter('lintel_ingest_queue_failed_total', 'Observations whose store write failed in the ingest queue', () => src().path?.().failed)
    gauge('lintel_mqtt_connections', 'MQTT clients connected now', () => src().broker?.()?.connected_clients)
    new Counter({
      name: 'lintel_mqtt_refusals_total', help: 'What the MQTT broker refused, per reason (logins, throttling, pre-login bounds, subscriptions, oversize packets, bad lines, lines outside the grant)',
      labelNames: ['reason'], registers: [r],
      collect () {
        const m = src().broker?.()
        if (!m) return
        this.reset()
        for (const [key, reason] of Object.entries(MQTT_REFUSALS)) this.inc({ reason }, m[key] ?? 0)
      },
    })
    counter('lintel_mqtt_lines_stored_total', 'Line-protocol lines stored from MQTT', () => src().broker?.()?.lines_stored)
    const alerts = () => src().alerts?.()
    gauge('lintel_alerts_running', 'Alerts evaluated in this process', () => alerts()?.running)
    counter('lintel_alert_evaluations_total', 'Observations evaluated by alerts', () => alerts()?.evaluated)
    counter('lintel_alert_raises_total', 'Alert raises (escalations included)', () => alerts()?.raised)
    counter('lintel_alert_resets_total', 'Alert resets', () => alerts()?.reset)
    gauge('lintel_alert_notifications_held', 'Events held in an alert\'s rate window for its coalesced notification', () => alerts()?.notifications_held)
    gauge('lintel_alert_outbox_pending', 'Notifications (webhook, e-mail, log) in the durable outbox, not yet delivered', () => alerts()?.notifications?.pending)
    counter('lintel_alert_notifications_delivered_total', 'Notifications delivered', () => alerts()?.notifications?.delivered)
    counter('lintel_alert_notifications_failed_total', 'Failed delivery attempts (each retried with back-off)', () => alerts()?.notifications?.failed_attempts)
    counter('lintel_alert_notifications_dropped_total', 'Notifications dropped at the outbox bound', () => alerts()?.notifications?.dropped)
    new Gauge({
      name: 'lintel_kafka_consumer_lag', help: 'Scaled mode, on a worker: records (published batches) of each observation-log partition it owns that it has not stored yet',
      labelNames: ['topic', 'partition'], registers: [r],
      collect () {
        this.reset() // a partition revoked from this worker leaves the gauge
        for (const p of src().consumerLag?.() ?? []) this.set({ topic: p.topic, partition: String(p.partition) }, p.records)
      },
    })
  }
}
