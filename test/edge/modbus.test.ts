// The Modbus TCP driver (issue 32 item 3) against the test device, its own process on a real
// socket (edge/simulators/modbus-device.ts, register layout written there by hand): every data
// type and word/byte order decoded, contiguous ranges read in one request, writes through the
// agent's persisted 16-level priority array, refusals, a device that goes away.
import { join } from 'node:path'
import Modbus from 'modbus-serial'
import t, { type Test } from 'tap'
import type { ModbusDriverConfig, ModbusPointConfig } from '../../edge/config/schema.ts'
import { DriverRefusal } from '../../edge/driver.ts'
import { decode, encode } from '../../edge/drivers/modbus/codec.ts'
import { ModbusDriver } from '../../edge/drivers/modbus/driver.ts'
import { pollPlan } from '../../edge/drivers/modbus/plan.ts'
import { PriorityStore } from '../../edge/drivers/priority-store.ts'
import { modbusDevice } from '../helpers/edge-processes.ts'
import { settleWithin, waitFor } from '../helpers/wait.ts'

const P = (id: string, kind: ModbusPointConfig['kind'], address: number, type: ModbusPointConfig['type'] = 'uint16', more: Partial<ModbusPointConfig> = {}): ModbusPointConfig =>
  ({ id, unit_id: 1, kind, address, type, byte_order: 'big', word_order: 'big', scale: 1, offset: 0, writable: false, ...more })

const LAYOUT: [ModbusPointConfig, number][] = [
  [P('int16', 'holding', 0, 'int16'), -1234],
  [P('uint16', 'holding', 1), 54321],
  [P('int32', 'holding', 2, 'int32'), -123456789],
  [P('uint32-cdab', 'holding', 4, 'uint32', { word_order: 'little' }), 3000000000],
  [P('float32', 'holding', 6, 'float32'), 21.5],
  [P('float32-dcba', 'holding', 8, 'float32', { word_order: 'little', byte_order: 'little' }), -3.25],
  [P('float32-cdab', 'holding', 10, 'float32', { word_order: 'little' }), 1013.25],
  [P('float64', 'holding', 12, 'float64'), 123456.789],
  [P('float64-ghefcdab', 'holding', 16, 'float64', { word_order: 'little' }), -0.001],
  [P('setpoint', 'holding', 20, 'int16', { scale: 0.1, writable: true, unit: '°C' }), 21.5],
  [P('uint16-ba', 'holding', 21, 'uint16', { byte_order: 'little' }), 4660],
  [P('input', 'input', 1), 7],
  [P('coil0', 'coil', 0, 'uint16', { writable: true }), 1],
  [P('coil1', 'coil', 1), 0],
  [P('di1', 'discrete', 1), 1],
  [P('unit2', 'holding', 0, 'int16', { unit_id: 2, offset: -40 }), 2],
]

function driverFor(t: Test, port: number, points: ModbusPointConfig[], dir: string, pipeline = 1) {
  const cfg: ModbusDriverConfig = { type: 'modbus', name: 'dev', host: '127.0.0.1', port, poll_ms: 60_000, timeout_ms: 3000, pipeline, points }
  const d = new ModbusDriver(cfg, new PriorityStore(join(dir, 'prio.json')))
  t.teardown(() => d.close())
  const seen = new Map<string, number | null>()
  d.onPresentValue((p, v) => seen.set(p, v))
  return { d, seen }
}

t.test('codec: every type and order round-trips; scale and offset; out of range refused', async (t) => {
  for (const [p, v] of LAYOUT.filter(([p]) => p.kind === 'holding')) t.equal(decode(encode(v, p), p), v, p.id)
  t.same(encode(21.5, P('x', 'holding', 0, 'int16', { scale: 0.1 })), [215])
  t.same(encode(1, P('x', 'holding', 0, 'uint32', { word_order: 'little' })), [1, 0], 'CDAB: the low word first')
  t.throws(() => encode(40000, P('x', 'holding', 0, 'int16')), /outside what a int16 register holds/)
  t.throws(() => encode(-1, P('x', 'holding', 0, 'uint16')), RangeError)
})

t.test('poll plan: contiguous ranges per unit and kind, at most 125 registers', async (t) => {
  const many = Array.from({ length: 300 }, (_, i) => P(`r${i}`, 'holding', 1000 + i))
  const plan = pollPlan([...many, P('gap', 'holding', 1400), P('u2', 'holding', 1000, 'uint16', { unit_id: 2 }), P('f', 'input', 0, 'float64'), P('g', 'input', 4, 'float32')])
  t.same(plan.map((r) => [r.unitId, r.kind, r.address, r.length, r.points.length]), [
    [1, 'holding', 1000, 125, 125], [1, 'holding', 1125, 125, 125], [1, 'holding', 1250, 50, 50], [1, 'holding', 1400, 1, 1],
    [1, 'input', 0, 6, 2], [2, 'holding', 1000, 1, 1],
  ])
})

t.test('reads every data type and order from the device', async (t) => {
  const { port } = await modbusDevice(t)
  const { d, seen } = driverFor(t, port, LAYOUT.map(([p]) => p), t.testdir())
  await d.pollOnce()
  for (const [p, v] of LAYOUT) t.equal(seen.get(p.id), v, `${p.id}: ${v}`)
  t.same(d.stats(), { connected: true, pointsPolled: LAYOUT.length, pollErrors: 0 })
  t.same(d.points().find((p) => p.id === 'setpoint')!.tags, { protocol: 'modbus', device: 'dev', unit_id: '1', register: 'holding', address: '20', data_type: 'int16', unit: '°C', writable: 'true' })
})

t.test('pipelined polls (8 requests at a time): every value of 2,000 registers and of every type, each once; a failing range counted', async (t) => {
  const { port } = await modbusDevice(t, ['--bulk', '2000'])
  const bulk = Array.from({ length: 2000 }, (_, i) => P(`b${i}`, 'holding', 1000 + i))
  // Unit 9 does not exist on the device: its range fails alone, the others are read.
  const points = [...LAYOUT.map(([p]) => p), ...bulk, P('missing', 'holding', 0, 'int16', { unit_id: 9 })]
  const { d, seen } = driverFor(t, port, points, t.testdir(), 8)
  let emitted = 0
  d.onPresentValue(() => emitted++)
  await d.pollOnce()
  for (const [p, v] of LAYOUT) t.equal(seen.get(p.id), v, `${p.id}: ${v}`)
  t.ok(bulk.every((p, i) => seen.get(p.id) === i % 1000), 'the 2,000 registers, each with its value')
  t.equal(emitted, LAYOUT.length + 2000, 'each value once')
  t.same(d.stats(), { connected: true, pointsPolled: LAYOUT.length + 2000, pollErrors: 1 })
  t.notOk(seen.has('missing'))
})

t.test('writes through a persisted 16-level priority array: the winner reaches the device', async (t) => {
  const { port } = await modbusDevice(t)
  const dir = t.testdir()
  const points = LAYOUT.map(([p]) => p)
  const { d } = driverFor(t, port, points, dir)
  const probe = new Modbus.default()
  await probe.connectTCP('127.0.0.1', { port })
  t.teardown(() => new Promise<void>((resolve) => probe.close(() => resolve())))
  probe.setID(1)
  const device = async () => (await probe.readHoldingRegisters(20, 1)).data[0]
  const NULLS = new Array(16).fill(null)
  const w = (value: number | null, priority: number, dryrun = false) => d.write({ point: 'setpoint', value, priority, dryrun, keepOutOfService: false })

  t.same(await w(22.5, 8), { priorityArray: NULLS, presentValue: 22.5, effective: true })
  t.equal(await device(), 225, 'written as 225 (scale 0.1)')
  const dry = await w(30, 1, true)
  t.same(dry, { priorityArray: [...NULLS.slice(0, 7), 22.5, ...NULLS.slice(8)], presentValue: 30, effective: true }, 'a dry run reports')
  t.equal(await device(), 225, '... and writes nothing')
  t.same(await w(19, 12), { priorityArray: [...NULLS.slice(0, 7), 22.5, ...NULLS.slice(8)], presentValue: 22.5, effective: false }, 'a less urgent write has no effect')
  t.equal(await device(), 225)
  t.same((await w(null, 8)).presentValue, 19, 'relinquishing 8 lets 12 win')
  t.equal(await device(), 190)
  await d.close()

  // A restarted agent: the array comes back from its disk.
  const again = driverFor(t, port, points, dir).d
  t.same((await again.write({ point: 'setpoint', value: null, priority: 12, dryrun: false, keepOutOfService: false })).priorityArray, [...NULLS.slice(0, 11), 19, ...NULLS.slice(12)], 'the array survived the restart')
  t.equal(await device(), 215, 'all relinquished: the relinquish default (the device value before the first write)')
  t.same((await again.write({ point: 'coil0', value: 0, priority: 5, dryrun: false, keepOutOfService: false })).presentValue, 0)
  t.equal((await probe.readCoils(0, 1)).data[0], false, 'coil written')

  await t.rejects(again.write({ point: 'input', value: 1, priority: 5, dryrun: false, keepOutOfService: false }), new DriverRefusal("'input' is not writable (an input register)"))
  await t.rejects(again.write({ point: 'setpoint', value: 5000, priority: 5, dryrun: false, keepOutOfService: false }), /outside what a int16 register holds/)
  await t.rejects(again.write({ point: 'nope', value: 1, priority: 5, dryrun: false, keepOutOfService: false }), /unknown datapoint 'nope'/)
  t.equal(await device(), 215, 'a refused write changes nothing')
})

t.test('a device that goes away: poll errors counted, the driver shows it not connected', async (t) => {
  const dev = await modbusDevice(t)
  const { d } = driverFor(t, dev.port, [P('input', 'input', 1)], t.testdir())
  await d.pollOnce()
  t.equal(d.stats().pointsPolled, 1)
  dev.proc.child.kill('SIGKILL')
  await settleWithin(dev.proc.exited, { what: 'the device to exit' })
  await waitFor(async () => { await d.pollOnce(); return d.stats().pollErrors >= 1 }, { what: 'a poll error', timeoutMs: 20_000 })
  t.equal(d.stats().connected, false)
})
