// The BACnet/IP driver and discovery (issue 32 item 2) against the device simulator, its own
// process on loopback (edge/simulators/bacnet-device.ts, a non-default UDP port, unicast):
// discovery prints a point list the configuration accepts; COV where the device supports it
// (renewed before the lifetime ends), polling where it refuses; WriteProperty at a priority,
// null relinquishes, the priority array read back; a device without ReadPropertyMultiple.
import { load as loadYaml } from 'js-yaml'
import t from 'tap'
import { checkEdgeConfig, type BacnetDriverConfig } from '../../edge/config/schema.ts'
import { BacnetDriver } from '../../edge/drivers/bacnet/driver.ts'
import { bacnetDevice, freeUdpPort, runEdgeCommand } from '../helpers/edge-processes.ts'
import { waitFor } from '../helpers/wait.ts'

const NULLS = new Array(16).fill(null)

t.test('discover bacnet: Who-Is, the object list with names, units, descriptions, writable: a ready point list', async (t) => {
  const dev = await bacnetDevice(t)
  const local = await freeUdpPort()
  const r = await runEdgeCommand(t, ['discover', 'bacnet', '--target', `127.0.0.1:${dev.port}`, '--local-port', String(local)])
  t.equal(r.code, 0, r.stderr)
  t.match(r.stderr, /1 device\(s\), 6 point\(s\)/)
  const doc = loadYaml(r.stdout) as { drivers: Record<string, unknown>[] }
  t.same(doc.drivers[0].points, [
    { id: 'bacnet-1234/AHU1 supply temp', object: 'analog-input:1', unit: '°C', description: 'supply air after the heating coil', writable: false },
    { id: 'bacnet-1234/Outdoor temp', object: 'analog-input:2', unit: '°C', description: 'north facade', writable: false },
    { id: 'bacnet-1234/AHU1 valve', object: 'analog-output:1', unit: '%', description: 'heating valve', writable: true },
    { id: 'bacnet-1234/Room setpoint', object: 'analog-value:1', unit: '°C', description: 'room 1.01', writable: true },
    { id: 'bacnet-1234/Pump status', object: 'binary-input:1', description: 'P1', writable: false },
    { id: 'bacnet-1234/AHU1 enable', object: 'binary-value:1', description: 'release of the AHU', writable: true },
  ])
  t.match(doc.drivers[0], { type: 'bacnet', name: 'bacnet-1234', address: `127.0.0.1:${dev.port}`, device_instance: 1234, local_port: local })
  const checked = checkEdgeConfig({ broker: { url: 'mqtts://h:8884', account: 'a', project: 'g/h' }, state_dir: 's', ...doc })
  t.same(checked.errors, [], 'the configuration file takes it as it is')
  const none = await runEdgeCommand(t, ['discover', 'bacnet', '--target', `127.0.0.1:${await freeUdpPort()}`, '--local-port', String(await freeUdpPort()), '--timeout-ms', '500'])
  t.equal(none.code, 1)
  t.match(none.stderr, /no device answered Who-Is within 500 ms/)
})

t.test('driver: COV where supported (renewed), polling where refused; writes at a priority, null relinquishes, the array read back', async (t) => {
  const dev = await bacnetDevice(t)
  const cfg = checkEdgeConfig({
    broker: { url: 'mqtts://h:8884', account: 'a', project: 'g/h' }, state_dir: 's',
    drivers: [{
      type: 'bacnet', name: 'ahu', address: `127.0.0.1:${dev.port}`, device_instance: 1234, local_port: await freeUdpPort(), poll_ms: 200, cov_lifetime_s: 10,
      points: [
        { id: 'supply', object: 'analog-input:1' }, { id: 'outdoor', object: 'analog-input:2' }, { id: 'valve', object: 'analog-output:1', writable: true },
        { id: 'sp', object: 'analog-value:1', writable: true }, { id: 'pump', object: 'binary-input:1' }, { id: 'enable', object: 'binary-value:1', writable: true },
      ],
    }],
  }) as { config: { drivers: BacnetDriverConfig[] } }
  const d = new BacnetDriver(cfg.config.drivers[0])
  t.teardown(() => d.close())
  const seen = new Map<string, (number | null)[]>()
  d.onPresentValue((p, v) => seen.set(p, [...(seen.get(p) ?? []), v]))
  await d.start()
  t.same(d.covPoints().sort(), ['pump', 'sp', 'supply', 'valve'], 'COV on the objects that support it')
  t.same(Object.fromEntries([...seen].map(([k, v]) => [k, v[0]])), { supply: 21.5, outdoor: 8.25, valve: 0, sp: 21, pump: 1, enable: 0 }, 'every point read once at start')
  dev.send('set 0:1 22.75')
  await waitFor(() => seen.get('supply')!.includes(22.75), { what: 'the COV notification of analog-input 1' })
  dev.send('set 0:2 9.5')
  await waitFor(() => seen.get('outdoor')!.includes(9.5), { what: 'the polled analog-input 2 to change' })
  const polled = d.stats().pointsPolled
  await waitFor(() => d.stats().pointsPolled > polled + 4, { what: 'more polls' })
  t.ok(seen.get('supply')!.length < seen.get('outdoor')!.length, 'COV points are not polled')

  t.same(await d.write({ point: 'sp', value: 23.5, priority: 8, dryrun: false, keepOutOfService: false }), { priorityArray: NULLS, presentValue: 23.5, effective: true })
  await waitFor(() => dev.proc.out().includes('written 2:1 23.5 @8'), { what: 'the device to log the write' })
  t.same(await d.write({ point: 'sp', value: 19, priority: 12, dryrun: false, keepOutOfService: false }), { priorityArray: [...NULLS.slice(0, 7), 23.5, ...NULLS.slice(8)], presentValue: 23.5, effective: false }, 'a less urgent write: read back, not effective')
  t.same(await d.write({ point: 'sp', value: null, priority: 8, dryrun: true, keepOutOfService: false }), { priorityArray: [...NULLS.slice(0, 7), 23.5, ...NULLS.slice(8, 11), 19, ...NULLS.slice(12)], presentValue: 19, effective: true }, 'a dry run computes')
  t.notMatch(dev.proc.out(), /written 2:1 null @8/, '... and writes nothing')
  t.equal((await d.write({ point: 'sp', value: null, priority: 8, dryrun: false, keepOutOfService: false })).presentValue, 19, 'null relinquishes: 12 wins')
  t.equal((await d.write({ point: 'sp', value: null, priority: 12, dryrun: false, keepOutOfService: false })).presentValue, 21, 'all relinquished: the relinquish default')
  t.equal((await d.write({ point: 'enable', value: 1, priority: 5, dryrun: false, keepOutOfService: false })).presentValue, 1, 'a binary value')
  await t.rejects(d.write({ point: 'supply', value: 1, priority: 5, dryrun: false, keepOutOfService: false }), /'supply' is not writable/)

  // The subscription lifetime is 10 s: renewed at half of it.
  await waitFor(() => (dev.proc.out().match(/subscribed 0:1 10/g) ?? []).length >= 2, { what: 'the renewal of the COV subscription', timeoutMs: 20_000 })
  t.pass('renewed before the lifetime ended')
})

t.test('driver: a device without ReadPropertyMultiple is read property by property, and not asked for RPM again', async (t) => {
  const dev = await bacnetDevice(t, ['--no-rpm'])
  const cfg = checkEdgeConfig({
    broker: { url: 'mqtts://h:8884', account: 'a', project: 'g/h' }, state_dir: 's',
    drivers: [{
      type: 'bacnet', name: 'old', address: `127.0.0.1:${dev.port}`, device_instance: 1234, local_port: await freeUdpPort(), poll_ms: 200, cov: false,
      points: [{ id: 'supply', object: 'analog-input:1' }, { id: 'outdoor', object: 'analog-input:2' }, { id: 'pump', object: 'binary-input:1' }],
    }],
  }) as { config: { drivers: BacnetDriverConfig[] } }
  const logs: string[] = []
  const d = new BacnetDriver(cfg.config.drivers[0], undefined, (m) => logs.push(m))
  t.teardown(() => d.close())
  const seen = new Map<string, (number | null)[]>()
  d.onPresentValue((p, v) => seen.set(p, [...(seen.get(p) ?? []), v]))
  await d.start()
  t.same(Object.fromEntries([...seen].map(([k, v]) => [k, v[0]])), { supply: 21.5, outdoor: 8.25, pump: 1 }, 'every point read at start, with ReadProperty')
  t.match(logs.join('\n'), /ReadPropertyMultiple refused \(BacnetError - Class:5 - Code:45\); reading property by property/, 'the fallback is logged')
  dev.send('set 0:2 9.5')
  await waitFor(() => seen.get('outdoor')!.includes(9.5), { what: 'the polled analog-input 2 to change' })
  const polls = seen.get('supply')!.length
  await waitFor(() => seen.get('supply')!.length >= polls + 3, { what: 'three more polls' })
  t.equal(dev.proc.out().match(/refused ReadPropertyMultiple/g)?.length, 1, 'RPM asked once: later polls go property by property')
  t.equal(d.stats().pollErrors, 0, 'a refused RPM is no poll error')
})
