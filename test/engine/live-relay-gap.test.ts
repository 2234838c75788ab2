// The live-only gap of the scaled mode (docs/live.md "Scaled mode"), pinned: a worker whose own
// Redis connection is down keeps the batches it stored in its Redis client's queue; killed
// before it reconnects, those batches never reach an API process's feed, and the feed is not
// told (its own connection stayed up), while the next owner's batches arrive. Subscribers fill
// such a gap with `since` from the store, which has every batch. Real Redis (:16379); the
// worker's connection runs through a proxy this test cuts; the worker is a process, killed
// with SIGKILL.
import t from 'tap'
import { spawn } from 'node:child_process'
import { createServer, connect, type Socket } from 'node:net'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { ObservationBus } from '../../engine/observation-bus.ts'
import { redisFeed, startLiveRelay } from '../../engine/live/redis-channel.ts'
import type { Observation } from '../../engine/store/port.ts'
import { requireService } from '../helpers/services.ts'
import { waitFor } from '../helpers/wait.ts'

const REDIS = { host: '127.0.0.1', port: 16379 }
const REDIS_URL = `redis://${REDIS.host}:${REDIS.port}`

t.test('a worker killed while its Redis is away: the batches it stored meanwhile never reach the live feed', async (t) => {
  if (!(await requireService(t, 'Redis', REDIS.host, REDIS.port, 'npm run test:deps'))) return
  // A project id no other test's channel uses (the Redis is shared).
  const project = 900_000_000 + Math.floor(Math.random() * 1e8)

  // The worker's way to Redis: a proxy that can be cut (open sockets closed, new ones refused).
  let cut = false
  const open = new Set<Socket>()
  const proxy = createServer((client) => {
    if (cut) return void client.destroy()
    const upstream = connect(REDIS)
    for (const s of [client, upstream]) { open.add(s); s.on('close', () => open.delete(s)); s.on('error', () => {}) }
    client.pipe(upstream).pipe(client)
  })
  proxy.listen(0, '127.0.0.1')
  await once(proxy, 'listening')
  t.teardown(() => { for (const s of open) s.destroy(); proxy.close() })
  const proxyPort = (proxy.address() as { port: number }).port

  // The API process's side: the feed of the project, straight to Redis.
  const got: Observation[] = []
  let interrupted = 0
  const feed = redisFeed(REDIS_URL, () => {})
  t.teardown(() => feed.close())
  feed.observations((batch, p) => { if (p === project) got.push(...batch) })
  feed.interrupted(() => { interrupted++ })
  await feed.watch(project)

  const worker = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../helpers/live-relay-worker.ts', import.meta.url))], {
    env: { ...process.env, LINTEL_REDIS_URL: `redis://127.0.0.1:${proxyPort}` }, stdio: ['pipe', 'pipe', 'inherit'],
  })
  t.teardown(() => { if (worker.exitCode === null) worker.kill('SIGKILL') })
  let out = ''
  worker.stdout!.on('data', (d) => { out += d })
  const stored = (rows: [number, number, number][]) => worker.stdin!.write(JSON.stringify([project, rows]) + '\n')
  await waitFor(() => out.includes('ready'), { what: 'the worker to start', timeoutMs: 30_000 })

  stored([[1, 1_000, 1]])
  await waitFor(() => got.length === 1, { what: 'the first batch on the live feed', timeoutMs: 10_000 })

  cut = true
  for (const s of open) s.destroy()
  stored([[1, 2_000, 2], [1, 3_000, 3]])
  await waitFor(() => out.includes('published 2'), { what: 'the worker to take the second batch (queued: its Redis is away)' })
  worker.kill('SIGKILL')
  await once(worker, 'exit')
  cut = false // Redis is reachable again: only the dead worker's queue is gone

  // The partition's next owner relays what it stores from now on.
  const bus = new ObservationBus()
  const next = startLiveRelay({ redisUrl: REDIS_URL, bus, projectOfAlert: async () => undefined, onError: () => {} })
  t.teardown(() => next.close())
  bus.publish([{ series: 1, time: 4_000, value: 4 }], project) // queued until its connection is ready
  await waitFor(() => got.some((o) => o.time === 4_000), { what: 'the next owner\'s batch on the live feed', timeoutMs: 10_000 })

  t.same(got.map((o) => o.time), [1_000, 4_000], 'the batch stored while the worker\'s Redis was away never arrived')
  t.equal(interrupted, 0, 'and the feed was not told: its own connection stayed up (no 4409 for the sockets)')
})
