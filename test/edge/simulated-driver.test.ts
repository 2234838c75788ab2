// The simulated BACnet-style driver: 16-level priority array, relinquish default, present value
// from the most urgent non-null slot, dry run, out of service against the local automation.
import t from 'tap'
import { DriverRefusal } from '../../edge/driver.ts'
import { encodeLine } from '../../protocol/line-encoder.ts'
import { SimulatedBacnetDriver } from '../../edge/simulated-driver.ts'
import { parseLines } from '../../protocol/line-protocol.ts'
import { VirtualClock } from '../../core/clock/virtual-clock.ts'

t.test('priority array and present value', async (t) => {
  const clock = new VirtualClock(1_700_000_000_000_500)
  const d = new SimulatedBacnetDriver([{ id: 'p', relinquishDefault: 20, min: 0, max: 50 }], clock)
  const seen: [string, number | null, number][] = []
  d.onPresentValue((p, v, at) => seen.push([p, v, at]))
  t.equal(d.read('p').presentValue, 20, 'the relinquish default without any write')
  const w = (value: number | null, priority: number, extra = {}) => d.write({ point: 'p', value, priority, dryrun: false, keepOutOfService: false, ...extra })
  t.same(await w(22, 13), { priorityArray: new Array(16).fill(null), presentValue: 22, effective: true })
  clock.advance(2_500_000)
  t.match(await w(19, 8), { presentValue: 19, effective: true })
  t.same(seen.map((s) => s[2]), [1_700_000_000_000, 1_700_000_002_500], 'stamped with the clock\'s time, in ms')
  const r = await w(23, 13)
  t.equal(r.priorityArray[12], 22, 'the array before the write')
  t.equal(r.effective, false, 'priority 8 wins')
  t.equal(r.presentValue, 19)
  t.match(await w(null, 8), { presentValue: 23 })
  t.match(await w(null, 13), { presentValue: 20 }, 'all released: the relinquish default')
  t.same(seen.map((s) => s[1]), [22, 19, 19, 23, 20], 'every real write publishes the present value')
  const dry = await w(30, 1, { dryrun: true })
  t.equal(dry.presentValue, 30)
  t.equal(d.read('p').priorityArray[0], null, 'a dry run changes nothing')
  t.equal(seen.length, 5, 'and publishes nothing')
  await t.rejects(w(99, 13), DriverRefusal)
  await t.rejects(w(1, 17), /priority 17/)
  await t.rejects(d.write({ point: 'q', value: 1, priority: 13, dryrun: false, keepOutOfService: false }), /unknown datapoint 'q'/)
  t.ok(d.localAutomation('p', 5))
  t.equal(d.read('p').presentValue, 5)
  await w(21, 13, { keepOutOfService: true })
  t.notOk(d.localAutomation('p', 6), 'out of service')
  t.equal(d.read('p').priorityArray[15], 5)
  t.equal(SimulatedBacnetDriver.numbered('sim-', 3).has('sim-3'), true)
})

t.test('present values as line protocol', async (t) => {
  for (const id of ['ahu-1.sp', 'room 1 "a"']) {
    let got: [string, number, number] | undefined
    parseLines(Buffer.from(encodeLine(id, 21.5, 1_700_000_000_123_000)), { observation: (i: string, time: number, v: number) => { got = [i, time, v] }, error: (_n: number, e: string) => t.fail(e) })
    t.same(got, [id, 1_700_000_000_123_000, 21.5], 'identifier, time in µs, value')
  }
})
