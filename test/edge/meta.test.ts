// META of the configured agent (issue 32): published for a point only when its message changed
// since the broker acknowledged the last one (digests in state_dir/meta.json), so a reconnection
// or a restart sends none and a changed unit sends that point's only; and META never holds back
// live values. Against the platform's broker; the points come from a field-bus driver double
// (the META path only needs their list and values).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { EdgeConfig } from '../../edge/config/schema.ts'
import { DriverRefusal, type DriverWriteResult } from '../../edge/driver.ts'
import type { PlantDriver, PointInfo } from '../../edge/drivers/plant-driver.ts'
import { startPlant } from '../../edge/plant/run.ts'
import { livePlatform } from '../helpers/live-platform.ts'
import { waitFor } from '../helpers/wait.ts'

class ListDriver implements PlantDriver {
  readonly name = 'meters'
  private readonly listeners = new Set<(p: string, v: number | null, at: number) => void>()
  constructor (private readonly list: PointInfo[]) {}
  async start(): Promise<void> {}
  points(): PointInfo[] { return this.list }
  stats() { return { connected: true, pointsPolled: 0, pollErrors: 0 } }
  has(p: string): boolean { return this.list.some((x) => x.id === p) }
  write(): Promise<DriverWriteResult> { return Promise.reject(new DriverRefusal('read only')) }
  onPresentValue(l: (p: string, v: number | null, at: number) => void): () => void { this.listeners.add(l); return () => this.listeners.delete(l) }
  emit(id: string, v: number): void { for (const l of this.listeners) l(id, v, Date.now()) }
  async close(): Promise<void> { this.listeners.clear() }
}

const points = (n: number, unit = (_i: number) => '°C') => Array.from({ length: n }, (_, i) => ({ id: `m/p${i}`, tags: { protocol: 'modbus', unit: unit(i) } }))

async function setup(t: Test) {
  const live = await livePlatform(t)
  const pid = await live.project('Plant')
  const { load_balancing_group: group, project_handle: handle } = await live.platform.catalog.projects.settings(pid)
  const edge = await live.account(pid, 'edge-1', 'write', undefined, true)
  const watch = await live.connect(await live.account(pid, 'watch', 'read'))
  /** META messages and time-series lines at a read subscriber, and how many META had arrived before each line. */
  const seen = { meta: [] as { id: string; unit?: string }[], lines: [] as string[], metaBefore: [] as number[] }
  watch.on('message', (topic, payload) => {
    if (topic.startsWith('META/')) {
      const m = JSON.parse(payload.toString())
      seen.meta.push({ id: m.entity.id, unit: m.tags.find((x: { key: string }) => x.key === 'unit')?.value })
    } else for (const l of payload.toString().split('\n')) { seen.lines.push(l); seen.metaBefore.push(seen.meta.length) }
  })
  await watch.subscribeAsync([`${group}/${handle}`, `META/${group}/${handle}`], { qos: 1 })
  // Not t.testdir(): livePlatform has it (a second call would wipe the platform's directory).
  const stateDir = mkdtempSync(join(tmpdir(), 'edge-meta-'))
  const config: EdgeConfig = {
    broker: { url: `mqtts://127.0.0.1:${live.platform.broker.ports.tls}`, account: edge.username, password_env: 'X', project: { group, handle } },
    state_dir: stateDir, buffer: { max_bytes: 64 << 20, lines_per_message: 100, in_flight: 8 }, health: { interval_s: 3600, prefix: 'edge/t' },
    drivers: [{ type: 'modbus', name: 'meters', host: '127.0.0.1', port: 1, poll_ms: 1000, timeout_ms: 1000, pipeline: 1, points: [] }], // built by the factory below
  }
  const plant = async (driver: ListDriver) => {
    const p = await startPlant(config, { password: edge.password, ca: live.ca, factory: () => driver })
    let stopped: Promise<void> | undefined
    const stop = () => (stopped ??= p.stop())
    t.teardown(async () => { await stop(); rmSync(stateDir, { recursive: true, force: true }) })
    return { ...p, stop }
  }
  /** A live value through the plant, waited for at the subscriber: what the connection sent before it has arrived. */
  const through = async (driver: ListDriver, v: number) => {
    driver.emit('m/p0', v)
    await waitFor(() => seen.lines.some((l) => l.startsWith(`m/p0 value=${v} `)), { what: `the live value ${v} at the subscriber`, timeoutMs: 20_000 })
  }
  return { live, pid, seen, stateDir, plant, through }
}

t.test('a reconnection or a restart publishes no META; a changed unit publishes that point\'s only', async (t) => {
  const { live, pid, seen, stateDir, plant, through } = await setup(t)
  const first = new ListDriver(points(3))
  const a = await plant(first)
  await waitFor(() => seen.meta.length === 3, { what: 'the META of the 3 points', timeoutMs: 20_000 })
  const digests = () => { try { return Object.keys(JSON.parse(readFileSync(join(stateDir, 'meta.json'), 'utf8')).digests) } catch { return [] } }
  await waitFor(() => digests().length === 3, { what: 'the acknowledged digests on disk', timeoutMs: 20_000 })
  t.same(digests().sort(), ['m/p0', 'm/p1', 'm/p2'], 'a digest per point on the agent\'s disk')

  // The connection drops and comes back.
  let connects = 0
  a.agent.client.on('connect', () => connects++)
  a.agent.client.stream.destroy()
  await waitFor(() => connects === 1, { what: 'the reconnection', timeoutMs: 20_000 })
  await through(first, 101)
  t.equal(seen.meta.length, 3, 'no META after the reconnection')
  await a.stop()

  // A restart with the same points: none; then with p1's unit changed: p1's only, with the new unit.
  const same = new ListDriver(points(3))
  const b = await plant(same)
  await waitFor(() => b.agent.client.connected, { what: 'the second agent to connect', timeoutMs: 20_000 })
  await through(same, 102)
  t.equal(seen.meta.length, 3, 'no META after a restart with unchanged points')
  await b.stop()
  const changed = new ListDriver(points(3, (i) => (i === 1 ? 'K' : '°C')))
  await plant(changed)
  await waitFor(() => seen.meta.length === 4, { what: 'the META of the changed point', timeoutMs: 20_000 })
  await through(changed, 103)
  t.same(seen.meta.slice(3), [{ id: 'm/p1', unit: 'K' }], 'only the changed point\'s META, with the new unit')
  const tags = await waitFor(async () => { const r = await live.read(pid, 'm/p1'); return r.tags?.some((x: { key: string; value: string }) => x.key === 'unit' && x.value === 'K') && r.tags }, { what: 'the new unit at the platform', timeoutMs: 20_000 })
  t.ok(tags, 'the platform has the new unit')
})

t.test('META of many points does not hold back a live value', async (t) => {
  const { seen, plant } = await setup(t)
  const many = new ListDriver(points(1500))
  const p = await plant(many)
  // A live value as soon as the agent is connected, while the META of 1,500 points wait.
  p.agent.client.once('connect', () => setImmediate(() => many.emit('m/p0', 7)))
  await waitFor(() => seen.lines.some((l) => l.startsWith('m/p0 value=7 ')), { what: 'the live value at the subscriber', timeoutMs: 60_000 })
  const before = seen.metaBefore[seen.lines.findIndex((l) => l.startsWith('m/p0 value=7 '))]
  t.ok(before < 100, `the live value arrived after ${before} of the 1,500 META messages (at most 8 of them in flight)`)
  await waitFor(() => seen.meta.length === 1500, { what: () => `the META of all points (${seen.meta.length})`, timeoutMs: 120_000 })
})
