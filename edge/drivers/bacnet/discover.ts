// `lintel edge discover bacnet` (issue 32 item 2): Who-Is (unicast to --target, or broadcast),
// then for every device that answered with I-Am its object list, and for each object of a
// type the driver reads: name, units, description, and whether it is commandable (its
// priority array can be read). Read with ReadPropertyMultiple in batches of 20 objects where
// the device supports it, ReadProperty per property otherwise. Prints a ready `drivers:`
// section for the configuration file (YAML; --json for JSON).
import bacnet from '@bacnet-js/client'
import { dump } from 'js-yaml'
import { parseArgs } from 'node:util'
import type { BacnetDriverConfig } from '../../config/schema.ts'
import { numberOf } from './driver.ts'
import { ANALOG_TYPES, COMMANDABLE_TYPES, DEVICE, OBJECT_TYPES, PROP, unitName } from './vocabulary.ts'

type Client = InstanceType<typeof bacnet.default>
interface Found { deviceId: number; address: string }
interface ObjectInfo { type: number; instance: number; name?: string; description?: string; units?: number; commandable: boolean }
const ALL = 0xffffffff

async function iAms(client: Client, target: string | undefined, timeoutMs: number): Promise<Found[]> {
  const found = new Map<number, Found>()
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); client.removeListener('iAm', onIAm); resolve([...found.values()]) }
    const onIAm = (c: { payload: { deviceId: number }; header?: { sender?: { address?: string } } }) => {
      found.set(c.payload.deviceId, { deviceId: c.payload.deviceId, address: c.header?.sender?.address ?? target ?? '' })
      if (target) done() // unicast: one device answers
    }
    const timer = setTimeout(done, timeoutMs)
    client.on('iAm', onIAm as never)
    client.whoIs(target ? { address: target } : undefined)
  })
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

async function objectsOf(client: Client, dev: Found): Promise<ObjectInfo[]> {
  const receiver = { address: dev.address }
  const list = await client.readProperty(receiver, { type: DEVICE, instance: dev.deviceId }, PROP.OBJECT_LIST)
  const ids = list.values.map((v) => v.value as { type: number; instance: number }).filter((o) => OBJECT_TYPES[o.type] !== undefined)
  const props = (type: number) => [PROP.OBJECT_NAME, PROP.DESCRIPTION, ...(ANALOG_TYPES.has(type) ? [PROP.UNITS] : []), ...(COMMANDABLE_TYPES.has(type) ? [PROP.PRIORITY_ARRAY] : [])]
  const out: ObjectInfo[] = []
  let rpm = true
  for (let i = 0; i < ids.length; i += 20) {
    const batch = ids.slice(i, i + 20)
    if (rpm) {
      try {
        const res = await client.readPropertyMultiple(receiver, batch.map((o) => ({ objectId: o, properties: props(o.type).map((id) => ({ id, index: ALL })) })))
        for (const r of res.values) {
          const get = (id: number) => r.values.find((v) => v.id === id)?.value as { type: number; value: unknown }[] | undefined
          const ok = (v: { type: number }[] | undefined) => v !== undefined && v.length > 0 && v[0].type !== 105
          out.push({
            type: r.objectId.type, instance: r.objectId.instance, name: text(get(PROP.OBJECT_NAME)?.[0]?.value), description: text(get(PROP.DESCRIPTION)?.[0]?.value),
            units: ok(get(PROP.UNITS)) ? numberOf(get(PROP.UNITS)![0]) ?? undefined : undefined, commandable: ok(get(PROP.PRIORITY_ARRAY)) && get(PROP.PRIORITY_ARRAY)!.length === 16,
          })
        }
        continue
      } catch {
        rpm = false // not supported: property by property
      }
    }
    for (const o of batch) {
      const read = async (id: number) => { try { return (await client.readProperty(receiver, o, id)).values as { type: number; value: unknown }[] } catch { return undefined } }
      const pa = COMMANDABLE_TYPES.has(o.type) ? await read(PROP.PRIORITY_ARRAY) : undefined
      const units = ANALOG_TYPES.has(o.type) ? await read(PROP.UNITS) : undefined
      out.push({ ...o, name: text((await read(PROP.OBJECT_NAME))?.[0]?.value), description: text((await read(PROP.DESCRIPTION))?.[0]?.value), units: units ? numberOf(units[0]) ?? undefined : undefined, commandable: pa?.length === 16 })
    }
  }
  return out
}

/** The config section of one device. */
export function driverSection(dev: Found, objects: ObjectInfo[], localPort: number): Omit<BacnetDriverConfig, 'points'> & { points: Record<string, unknown>[] } {
  const name = `bacnet-${dev.deviceId}`
  return {
    type: 'bacnet', name, address: dev.address, device_instance: dev.deviceId, local_port: localPort, poll_ms: 5000, cov: true, cov_lifetime_s: 300,
    points: objects.map((o) => {
      const unit = o.units === undefined ? undefined : unitName(o.units)
      return {
        id: `${name}/${o.name ?? `${OBJECT_TYPES[o.type]}-${o.instance}`}`, object: `${OBJECT_TYPES[o.type]}:${o.instance}`,
        ...(unit ? { unit } : {}), ...(o.description ? { description: o.description } : {}), writable: o.commandable,
      }
    }),
  }
}

export async function runDiscoverBacnet(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { target: { type: 'string' }, 'local-port': { type: 'string' }, 'timeout-ms': { type: 'string' }, json: { type: 'boolean' } } })
  const localPort = Number(values['local-port'] ?? 47808)
  const timeoutMs = Number(values['timeout-ms'] ?? 3000)
  if (!Number.isInteger(localPort) || localPort < 1 || localPort > 65535) { process.stderr.write('lintel edge discover bacnet: --local-port must be 1..65535\n'); return 2 }
  if (values.target !== undefined && !/^[^:\s]+:\d{1,5}$/.test(values.target)) { process.stderr.write('lintel edge discover bacnet: --target must be HOST:PORT\n'); return 2 }
  const client = new bacnet.default({ port: localPort, apduTimeout: 3000 })
  client.on('error', (err) => process.stderr.write(`lintel edge discover bacnet: ${err.message}\n`))
  try {
    const devices = await iAms(client, values.target, timeoutMs)
    if (devices.length === 0) { process.stderr.write(`lintel edge discover bacnet: no device answered Who-Is within ${timeoutMs} ms\n`); return 1 }
    const drivers = []
    for (const d of devices) drivers.push(driverSection(d, await objectsOf(client, d), localPort))
    process.stdout.write(values.json ? JSON.stringify({ drivers }, null, 2) + '\n' : dump({ drivers }, { lineWidth: 200 }))
    process.stderr.write(`lintel edge discover bacnet: ${devices.length} device(s), ${drivers.reduce((n, d) => n + d.points.length, 0)} point(s)\n`)
    return 0
  } finally {
    client.close()
  }
}
