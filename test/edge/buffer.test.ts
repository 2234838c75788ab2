// The durable buffer and its forwarder (issue 32 item 4): lines survive a reopen (a killed
// agent), a torn last line is cut, the bound drops the oldest and counts them; against the
// platform's broker, a backlog is sent oldest first in multi-line QoS 1 messages, leaves the
// buffer only when acknowledged, and a live value is not held back behind the backlog.
import { appendFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import mqtt from 'mqtt'
import t from 'tap'
import { DiskBuffer } from '../../edge/buffer/disk-buffer.ts'
import { Forwarder } from '../../edge/buffer/forwarder.ts'
import { encodeLine } from '../../protocol/line-encoder.ts'
import { livePlatform } from '../helpers/live-platform.ts'
import { waitFor } from '../helpers/wait.ts'

const T0 = 1_700_000_000_000_000 // µs
const line = (id: string, i: number) => encodeLine(id, i, T0 + i * 1000)

t.test('lines taken are on disk: a reopened buffer has them, cuts a torn line, and forgets what was acknowledged', async (t) => {
  const dir = t.testdir()
  const a = new DiskBuffer({ dir, maxBytes: 8 << 20 })
  for (let i = 1; i <= 1000; i++) a.take(line('x', i))
  a.flush()
  t.equal(a.counters.taken, 1000)
  const first = a.nextBatch('live', 300)!
  t.equal(first.lines, 300)
  t.equal(first.body.toString().split('\n')[0], line('x', 1), 'oldest first')
  a.ack(first)
  t.equal(a.depth(), 700)
  // Killed: no close. A write torn in the middle of a line is left at the end of the segment.
  const seg = readdirSync(dir).filter((f) => f.endsWith('.log')).sort((x, y) => parseInt(x) - parseInt(y)).at(-1)!
  appendFileSync(join(dir, seg), 'x value=1 17000')
  const b = new DiskBuffer({ dir, maxBytes: 8 << 20 })
  t.equal(b.counters.recovered, 700, 'the unacknowledged lines are recovered, the torn one cut')
  t.equal(b.depth(), 700)
  t.equal(b.oldestTimeUs(), T0 + 301 * 1000, 'oldest buffered: the first unacknowledged line')
  const got: string[] = []
  for (let batch = b.nextBatch('backlog', 250); batch; batch = b.nextBatch('backlog', 250)) { got.push(...batch.body.toString().split('\n')); b.ack(batch) }
  t.same(got, Array.from({ length: 700 }, (_, i) => line('x', i + 301)), 'every recovered line once, in order')
  t.equal(b.depth(), 0)
  b.close()
  const c = new DiskBuffer({ dir, maxBytes: 8 << 20 })
  t.equal(c.counters.recovered, 0, 'nothing acknowledged comes back')
  t.equal(readdirSync(dir).filter((f) => f.endsWith('.log')).length, 1, 'acknowledged segments were deleted (one empty live segment)')
  c.close()
})

t.test('an acknowledgement from before a rewind acknowledges only its own lines, not a batch sent again with more', async (t) => {
  // A failed publish rewinds the buffer while older messages may still be in the MQTT client's
  // store, to be sent again and acknowledged later. The batch cut again from the same offset can
  // hold more lines; the old message's PUBACK must not count them as stored.
  const b = new DiskBuffer({ dir: t.testdir(), maxBytes: 8 << 20 })
  for (let i = 1; i <= 10; i++) b.take(line('x', i))
  const old = b.nextBatch('live', 4)!
  b.rewind()
  const again = b.nextBatch('live', 10)!
  t.equal(again.start, old.start, 'cut again from the same offset')
  b.ack(old)
  t.equal(b.depth(), 10, 'the late acknowledgement of the old message moves nothing (its lines are in the new one)')
  b.ack(again)
  t.equal(b.depth(), 0, 'the new message\'s acknowledgement does')
  b.close()
  const c = new DiskBuffer({ dir: t.testdir(), maxBytes: 8 << 20 })
  for (let i = 1; i <= 10; i++) c.take(line('x', i))
  const first = c.nextBatch('live', 4)!
  c.rewind()
  const same = c.nextBatch('live', 4)!
  c.ack(first)
  t.equal(c.depth(), 6, 'an old acknowledgement of exactly the lines cut again counts: those lines are stored')
  c.ack(same)
  t.equal(c.depth(), 6, 'and the second acknowledgement of them moves nothing more')
  c.close()
})

t.test('bounded in bytes: beyond the bound the oldest are dropped, counted and logged', async (t) => {
  const dir = t.testdir()
  const logs: string[] = []
  const b = new DiskBuffer({ dir, maxBytes: 1 << 20, segmentBytes: 64 << 10, log: (m) => logs.push(m) })
  const n = 60_000 // ~2.3 MB of lines
  for (let i = 1; i <= n; i++) { b.take(line('bounded/series', i)); if (i % 1000 === 0) b.flush() }
  b.flush()
  t.ok(b.bytes() <= (1 << 20) + (64 << 10), `at most the bound plus one segment (${b.bytes()} bytes)`)
  t.equal(b.counters.dropped + b.depth(), n, 'every line is either buffered or counted as dropped')
  t.ok(b.counters.dropped > n / 2, `dropped ${b.counters.dropped}`)
  t.match(logs.at(-1), /^edge buffer: over its bound of 1048576 bytes, dropped the oldest \d+ observation\(s\) \(\d+ since the start\)$/)
  const batch = b.nextBatch('backlog', 1)!
  t.equal(batch.body.toString(), line('bounded/series', b.counters.dropped + 1), 'what is kept is the newest, from the first not dropped')
  b.close()
})

t.test('forwarded to the broker: backlog oldest first in multi-line messages, removed when acknowledged, live values not starved', async (t) => {
  const live = await livePlatform(t)
  const pid = await live.project('Buffer')
  const { load_balancing_group: group, project_handle: handle } = await live.platform.catalog.projects.settings(pid)
  const writer = await live.account(pid, 'gw', 'write')
  const reader = await live.account(pid, 'watch', 'read')
  const sub = await live.connect(reader)
  const messages: string[] = []
  sub.on('message', (_topic, payload) => messages.push(String(payload)))
  await sub.subscribeAsync(`${group}/${handle}`, { qos: 1 })

  // The outage: 20,000 observations taken while no broker is reachable.
  const buffer = new DiskBuffer({ dir: t.testdir(), maxBytes: 64 << 20 })
  t.teardown(() => buffer.close())
  const N = 20_000
  for (let i = 1; i <= N; i++) buffer.take(line('backlog', i))
  buffer.flush()
  const client = mqtt.connect(`mqtts://127.0.0.1:${live.platform.broker.ports.tls}`, { ca: live.ca, username: writer.username, password: writer.password, reconnectPeriod: 200 })
  t.teardown(() => client.endAsync(true))
  const forwarder = new Forwarder({ buffer, client, topic: `${group}/${handle}`, linesPerMessage: 250, inFlight: 4 })
  t.teardown(() => forwarder.stop())
  await waitFor(() => forwarder.counters.messages >= 1, { what: 'the first acknowledged message', timeoutMs: 30_000 })
  buffer.take(line('live', 1)) // taken after the reconnection: live
  await waitFor(() => buffer.depth() === 0, { what: 'the buffer to drain', timeoutMs: 120_000 })
  t.equal(buffer.counters.acked, N + 1, 'everything acknowledged')
  await waitFor(() => messages.join('\n').split('\n').length >= N + 1, { what: 'all lines at the subscriber', timeoutMs: 30_000 })
  const backlog = messages.filter((m) => m.startsWith('backlog '))
  t.ok(backlog.every((m) => m.split('\n').length <= 250), 'at most lines_per_message lines per message')
  t.ok(messages.length <= N / 250 + 2, `multi-line messages (${messages.length} for ${N + 1} lines)`)
  const values = backlog.flatMap((m) => m.split('\n')).map((l) => Number(/value=(\d+)/.exec(l)![1]))
  t.same(values, Array.from({ length: N }, (_, i) => i + 1), 'the backlog arrived oldest first, nothing lost, nothing twice')
  const liveAt = messages.findIndex((m) => m.startsWith('live '))
  t.ok(liveAt >= 0 && liveAt < 20, `the live value arrived before the backlog finished (message ${liveAt} of ${messages.length})`)
  const stored = await live.read(pid, 'backlog')
  t.equal(stored.data.length, N, 'all stored')
})
