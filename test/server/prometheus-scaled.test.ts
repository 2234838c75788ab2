// The operator's Prometheus endpoint in the scaled mode (issue 34 item 4), with the real Kafka
// (:19092) and QuestDB (:19000) of `npm run test:deps`: the whole platform in this process on
// the Kafka log and the QuestDB store. The worker's consumer lag per partition it owns
// (lintel_kafka_consumer_lag) shows records published while the store holds writes and
// returns to 0 once they are stored; partitions revoked from the worker (a second member
// joins the store group) leave the gauge and come back when it leaves. QuestDB commits are
// timed in lintel_store_commit_seconds.
import t from 'tap'
import { loadRdKafka } from '../../engine/log/kafka-rdkafka.ts'
import { openKafkaLog } from '../../engine/log/kafka-log.ts'
import { keyPartition } from '../../engine/log/kafka-partition.ts'
import { STORE_GROUP } from '../../engine/observation-path/scaled.ts'
import { QuestdbHttp } from '../../engine/store/questdb-http.ts'
import { GatedStore } from '../helpers/gated-store.ts'
import { livePlatform } from '../helpers/live-platform.ts'
import { requireService } from '../helpers/services.ts'
import { waitFor } from '../helpers/wait.ts'
import { samples } from '../helpers/prometheus.ts'

const BROKERS = '127.0.0.1:19092'
const QUESTDB = process.env.LINTEL_QUESTDB_URL ?? 'http://127.0.0.1:19000'
const RUN = `${process.pid}_${Date.now()}`
const TOPIC = `metrics.${RUN}`
const TABLE = `metrics_${RUN}`

/** The lag gauge's partitions and values. */
function lagOf(s: Map<string, number>): Map<number, number> {
  const out = new Map<number, number>()
  for (const [key, value] of s) {
    const m = /^lintel_kafka_consumer_lag\{topic="([^"]+)",partition="(\d+)"\}$/.exec(key)
    if (m && m[1] === TOPIC) out.set(Number(m[2]), value)
  }
  return out
}

t.test('scaled: the worker\'s consumer lag per partition, and QuestDB commits timed', { timeout: 120_000 }, async (t) => {
  if (!await requireService(t, 'Kafka', '127.0.0.1', 19092, 'npm run test:deps')) return
  if (!await requireService(t, 'QuestDB', '127.0.0.1', 19000, 'npm run test:deps')) return
  t.teardown(async () => {
    const admin = new QuestdbHttp({ url: QUESTDB })
    await admin.exec(`DROP TABLE IF EXISTS ${TABLE}`).catch(() => {})
    await admin.close()
    const kafka = await loadRdKafka()
    const ka = kafka.AdminClient.create({ 'metadata.broker.list': BROKERS })
    await new Promise<void>((resolve) => ka.deleteTopic(TOPIC, 5_000, () => resolve()))
    ka.disconnect()
  })
  let gated: GatedStore | undefined
  const live = await livePlatform(t, {
    LINTEL_LOG: 'kafka', LINTEL_KAFKA_BROKERS: BROKERS, LINTEL_KAFKA_TOPIC: TOPIC,
    LINTEL_STORE: 'questdb', LINTEL_QUESTDB: QUESTDB, LINTEL_QUESTDB_TABLE: TABLE, LINTEL_METRICS_PORT: '0',
  }, { wrapStore: (s) => (gated = new GatedStore(s)) })
  const scrape = async () => samples(await (await fetch(`${live.platform.metricsAddress}/metrics`)).text())
  const pid = await live.project('Lagging')
  const partition = keyPartition(String(pid), 6)
  const post = async (minute: number) => t.equal((await live.http('POST', `/v2/project/${pid}/timeseries`, { 'room/temp': [{ time: `2024-04-01T08:${String(minute).padStart(2, '0')}:00Z`, value: minute }] })).status, 200)

  // One record stored through QuestDB: its commit is timed, and the worker is at the head.
  const before = await scrape()
  await post(0)
  await waitFor(async () => (await live.read(pid, 'room/temp')).data?.length === 1, { what: 'the first observation stored', timeoutMs: 15_000 })
  let seen = new Map<number, number>()
  const head = await waitFor(async () => {
    const s = await scrape()
    seen = lagOf(s)
    return seen.size === 6 && [...seen.values()].every((v) => v === 0) ? s : undefined
  }, { what: () => `a lag of 0 on the six partitions the worker owns (seen: ${JSON.stringify([...seen])})`, timeoutMs: 15_000 })
  t.ok(head.get('lintel_store_commit_seconds_count')! - (before.get('lintel_store_commit_seconds_count') ?? 0) >= 1, 'the QuestDB commit is timed')
  t.ok(head.get('lintel_store_commit_seconds_sum')! > 0)

  // The store holds writes: records published meanwhile are the lag of the project's partition.
  gated!.hold()
  for (let m = 1; m <= 4; m++) await post(m)
  await waitFor(() => gated!.held === 1, { what: 'the worker\'s write held at the gate' })
  const behind = await waitFor(async () => { const l = lagOf(await scrape()); return l.get(partition) === 4 ? l : undefined }, { what: `a lag of 4 records on partition ${partition}`, timeoutMs: 15_000 })
  t.same([...behind].filter(([p, v]) => p !== partition && v !== 0), [], 'the other partitions are at the head')
  gated!.release()
  await waitFor(async () => lagOf(await scrape()).get(partition) === 0, { what: 'the lag back to 0 once stored', timeoutMs: 15_000 })
  t.equal((await live.read(pid, 'room/temp')).data.length, 5)

  // A second member of the store group takes half the partitions: they leave the gauge.
  const other = await openKafkaLog({ brokers: BROKERS, topic: TOPIC, createTopic: false, sessionTimeoutMs: 6_000, clientId: 'lintel-test' })
  t.teardown(() => other.close())
  let theirs: number[] = []
  const sub = await other.consume(STORE_GROUP, async () => {}, { onPartitions: (c) => { theirs = [...theirs.filter((p) => !c.revoked.includes(p)), ...c.assigned] } })
  const split = await waitFor(async () => { const l = lagOf(await scrape()); return l.size === 3 && theirs.length === 3 ? l : undefined }, { what: 'three partitions each', timeoutMs: 30_000 })
  t.same([...split.keys(), ...theirs].sort(), [0, 1, 2, 3, 4, 5], 'the gauge names the worker\'s partitions, not the other member\'s')
  await sub.stop()
  await waitFor(async () => lagOf(await scrape()).size === 6, { what: 'the six partitions back once the other member left', timeoutMs: 30_000 })
})
