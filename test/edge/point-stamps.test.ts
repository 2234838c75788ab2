// Times of the agent's observations (edge/point-stamps.ts): never two of one point in the same
// millisecond, order kept, other points untouched, a clock stepped back taken as it is; and the
// agent publishes through them.
import t from 'tap'
import { VirtualClock } from '../../core/clock/virtual-clock.ts'
import { startEdgeAgent } from '../../edge/agent.ts'
import { MAX_SHIFT_MS, PointStamps } from '../../edge/point-stamps.ts'
import { SimulatedBacnetDriver } from '../../edge/simulated-driver.ts'
import { encodeLine } from '../../protocol/line-encoder.ts'
import { freePort } from '../helpers/free-port.ts'

t.test('readings of one point in the same millisecond get successive times, in the order read', async (t) => {
  const s = new PointStamps()
  t.same([s.stamp('a', 1000), s.stamp('a', 1000), s.stamp('a', 1000)], [1000, 1001, 1002])
  t.equal(s.stamp('a', 1001), 1003, 'a reading of the next millisecond follows the shifted ones')
  t.equal(s.stamp('a', 1010), 1010, 'a later reading keeps its own time')
  t.equal(s.stamp('b', 1000), 1000, 'another point is not shifted by this one')
})

t.test('a clock stepped back by more than the shift limit is taken as it is', async (t) => {
  const s = new PointStamps()
  s.stamp('a', 1_000_000)
  t.equal(s.stamp('a', 1_000_000 - MAX_SHIFT_MS + 1), 1_000_001, 'a small step back: after the previous')
  t.equal(s.stamp('a', 1_000_000 - 60_000), 1_000_000 - 60_000, 'a minute back: the clock\'s time')
})

t.test('the agent publishes two readings of one point in one millisecond 1 ms apart, in order', async (t) => {
  // The simulated device on a stopped clock: its local automation and a setpoint change one
  // point in the same millisecond. The agent's lines go to a sink (the durable buffer's entry).
  const at = Date.UTC(2026, 10, 29, 6, 0, 0)
  const driver = new SimulatedBacnetDriver([{ id: 'ahu/sat', relinquishDefault: 20 }, { id: 'ahu/rat', relinquishDefault: 20 }], new VirtualClock(at * 1000))
  const lines: string[] = []
  const agent = await startEdgeAgent({
    url: `mqtt://127.0.0.1:${await freePort()}`, username: 'edge', password: 'x', reconnectPeriod: 0,
    group: 'g', handle: 'h', driver, offline: true, sink: (line) => lines.push(line),
  })
  t.teardown(() => agent.stop())
  driver.localAutomation('ahu/sat', 19)
  await driver.write({ point: 'ahu/sat', value: 20.5, priority: 8, dryrun: false, keepOutOfService: false })
  driver.localAutomation('ahu/rat', 21)
  t.same(lines, [
    encodeLine('ahu/sat', 19, at * 1000),
    encodeLine('ahu/sat', 20.5, (at + 1) * 1000),
    encodeLine('ahu/rat', 21, at * 1000),
  ], 'both readings kept apart, the later 1 ms after; another point keeps its time')
})
