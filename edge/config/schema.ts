// The configuration file of the edge agent (issue 32 item 1): `lintel edge --config FILE`,
// JSON or YAML, checked at start. The checker collects every mistake as one line
// `<path>: <reason>` (e.g. `drivers[0].points[3].type: must be one of int16, ...`) instead of
// stopping at the first, so an integrator fixes the file in one round.
// The password is never in the file: LINTEL_EDGE_PASSWORD (or the variable named by
// broker.password_env), like the command line of the simulated driver.

export const DATA_TYPES = ['int16', 'uint16', 'int32', 'uint32', 'float32', 'float64'] as const
export type DataType = typeof DATA_TYPES[number]
export const REGISTER_KINDS = ['coil', 'discrete', 'input', 'holding'] as const
export type RegisterKind = typeof REGISTER_KINDS[number]
export type Order = 'big' | 'little'

export interface ModbusPointConfig {
  id: string
  unit_id: number
  kind: RegisterKind
  address: number
  type: DataType
  /** order of the two bytes inside each 16-bit register (Modbus: big) */
  byte_order: Order
  /** order of the registers of a 32/64-bit value (big: most significant register first) */
  word_order: Order
  scale: number
  offset: number
  unit?: string
  description?: string
  /** coils and holding registers only; the agent keeps a priority array for it */
  writable: boolean
  /** the value written when every priority is relinquished (default: the device's value at the first write) */
  relinquish_default?: number
}

export interface ModbusDriverConfig {
  type: 'modbus'
  name: string
  host: string
  port: number
  poll_ms: number
  timeout_ms: number
  /** read requests sent before the first answer (Modbus TCP transaction ids; many devices take one at a time) */
  pipeline: number
  points: ModbusPointConfig[]
}

export interface BacnetPointConfig {
  id: string
  object_type: number
  instance: number
  unit?: string
  description?: string
  writable: boolean
}

export interface BacnetDriverConfig {
  type: 'bacnet'
  name: string
  /** the device's address, host:port (unicast) */
  address: string
  device_instance: number
  /** the local UDP port of the agent's BACnet client (default 47808, the standard port) */
  local_port: number
  poll_ms: number
  /** subscribe to COV where the device supports it */
  cov: boolean
  cov_lifetime_s: number
  points: BacnetPointConfig[]
}

export type DriverConfig = ModbusDriverConfig | BacnetDriverConfig

export interface EdgeConfig {
  broker: { url: string; ca?: string; account: string; password_env: string; project: { group: string; handle: string }; client_id?: string }
  /** the agent's own disk: buffer, priority arrays */
  state_dir: string
  buffer: { max_bytes: number; lines_per_message: number; in_flight: number }
  health: { interval_s: number; prefix: string }
  drivers: DriverConfig[]
}

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Collects `path: reason` lines while reading a parsed document. */
class Checker {
  readonly errors: string[] = []
  fail(path: string, reason: string): undefined { this.errors.push(`${path}: ${reason}`); return undefined }

  unknownKeys(o: Obj, path: string, known: readonly string[]): void {
    for (const k of Object.keys(o)) if (!known.includes(k)) this.fail(`${path}.${k}`, `unknown key (known: ${known.join(', ')})`)
  }

  str(o: Obj, key: string, path: string, dflt?: string): string | undefined {
    const v = o[key]
    if (v === undefined) return dflt ?? this.fail(`${path}.${key}`, 'is required')
    if (typeof v !== 'string' || v.length === 0) return this.fail(`${path}.${key}`, 'must be a non-empty string')
    return v
  }

  num(o: Obj, key: string, path: string, opts: { dflt?: number; min?: number; max?: number; int?: boolean } = {}): number | undefined {
    const v = o[key]
    if (v === undefined) return opts.dflt ?? this.fail(`${path}.${key}`, 'is required')
    const what = opts.int ? 'an integer' : 'a number'
    if (typeof v !== 'number' || !Number.isFinite(v) || (opts.int && !Number.isInteger(v))) return this.fail(`${path}.${key}`, `must be ${what}, got ${JSON.stringify(v)}`)
    if ((opts.min !== undefined && v < opts.min) || (opts.max !== undefined && v > opts.max)) {
      return this.fail(`${path}.${key}`, `must be ${what} from ${opts.min ?? '-inf'} to ${opts.max ?? 'inf'}, got ${v}`)
    }
    return v
  }

  bool(o: Obj, key: string, path: string, dflt: boolean): boolean {
    const v = o[key]
    if (v === undefined) return dflt
    if (typeof v !== 'boolean') { this.fail(`${path}.${key}`, 'must be true or false'); return dflt }
    return v
  }

  oneOf<T extends string>(o: Obj, key: string, path: string, allowed: readonly T[], dflt?: T): T | undefined {
    const v = o[key]
    if (v === undefined) return dflt ?? this.fail(`${path}.${key}`, `is required (one of ${allowed.join(', ')})`)
    if (!allowed.includes(v as T)) return this.fail(`${path}.${key}`, `must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`)
    return v as T
  }
}

const SIZE = /^(\d+(?:\.\d+)?)\s*(B|KB|KiB|MB|MiB|GB|GiB)?$/
const UNITS: Record<string, number> = { B: 1, KB: 1e3, KiB: 1024, MB: 1e6, MiB: 1024 ** 2, GB: 1e9, GiB: 1024 ** 3 }

/** A byte count: a number, or text like `512MiB`, `2GB`. */
function bytes(c: Checker, o: Obj, key: string, path: string, dflt: number): number {
  const v = o[key]
  if (v === undefined) return dflt
  const m = typeof v === 'string' ? SIZE.exec(v.trim()) : undefined
  const n = typeof v === 'number' ? v : m ? Number(m[1]) * UNITS[m[2] ?? 'B'] : NaN
  if (!Number.isFinite(n) || n < 1024 * 1024) { c.fail(`${path}.${key}`, `must be a size of at least 1MiB (a number of bytes or text like 512MiB), got ${JSON.stringify(v)}`); return dflt }
  return Math.floor(n)
}

export const BACNET_OBJECT_TYPES: Record<string, number> = {
  'analog-input': 0, 'analog-output': 1, 'analog-value': 2, 'binary-input': 3, 'binary-output': 4, 'binary-value': 5,
  'multi-state-input': 13, 'multi-state-output': 14, 'multi-state-value': 19,
}

function modbusPoint(c: Checker, p: unknown, path: string): ModbusPointConfig | undefined {
  if (!isObj(p)) return c.fail(path, 'must be an object')
  c.unknownKeys(p, path, ['id', 'unit_id', 'kind', 'address', 'type', 'byte_order', 'word_order', 'scale', 'offset', 'unit', 'description', 'writable', 'relinquish_default'])
  const kind = c.oneOf(p, 'kind', path, REGISTER_KINDS)
  const bit = kind === 'coil' || kind === 'discrete'
  const type = bit ? (p.type === undefined ? 'uint16' : c.fail(`${path}.type`, `a ${kind} is one bit: leave type out`)) : c.oneOf(p, 'type', path, DATA_TYPES)
  const writable = c.bool(p, 'writable', path, false)
  if (writable && (kind === 'input' || kind === 'discrete')) c.fail(`${path}.writable`, `${kind === 'input' ? 'an input register' : 'a discrete input'} cannot be written (only coils and holding registers)`)
  const out = {
    id: c.str(p, 'id', path), unit_id: c.num(p, 'unit_id', path, { dflt: 1, min: 0, max: 255, int: true }), kind, address: c.num(p, 'address', path, { min: 0, max: 65535, int: true }),
    type, byte_order: c.oneOf(p, 'byte_order', path, ['big', 'little'] as const, 'big'), word_order: c.oneOf(p, 'word_order', path, ['big', 'little'] as const, 'big'),
    scale: c.num(p, 'scale', path, { dflt: 1 }), offset: c.num(p, 'offset', path, { dflt: 0 }),
    unit: p.unit === undefined ? undefined : c.str(p, 'unit', path), description: p.description === undefined ? undefined : c.str(p, 'description', path),
    writable, relinquish_default: p.relinquish_default === undefined ? undefined : c.num(p, 'relinquish_default', path),
  }
  if (out.scale === 0) c.fail(`${path}.scale`, 'must not be 0')
  return out as ModbusPointConfig
}

function bacnetPoint(c: Checker, p: unknown, path: string): BacnetPointConfig | undefined {
  if (!isObj(p)) return c.fail(path, 'must be an object')
  c.unknownKeys(p, path, ['id', 'object', 'unit', 'description', 'writable'])
  const id = c.str(p, 'id', path)
  const obj = c.str(p, 'object', path)
  const m = obj === undefined ? null : /^([a-z-]+):(\d+)$/.exec(obj)
  if (obj !== undefined && (!m || BACNET_OBJECT_TYPES[m[1]] === undefined || Number(m[2]) > 4194302)) {
    c.fail(`${path}.object`, `must be <type>:<instance> with type one of ${Object.keys(BACNET_OBJECT_TYPES).join(', ')} and instance 0..4194302, got ${JSON.stringify(obj)}`)
  }
  return {
    id: id!, object_type: m ? BACNET_OBJECT_TYPES[m[1]] : 0, instance: m ? Number(m[2]) : 0,
    unit: p.unit === undefined ? undefined : c.str(p, 'unit', path), description: p.description === undefined ? undefined : c.str(p, 'description', path),
    writable: c.bool(p, 'writable', path, false),
  }
}

function points<T>(c: Checker, d: Obj, path: string, one: (c: Checker, p: unknown, path: string) => T | undefined): T[] {
  if (!Array.isArray(d.points) || d.points.length === 0) { c.fail(`${path}.points`, 'must be a non-empty list'); return [] }
  return d.points.map((p, i) => one(c, p, `${path}.points[${i}]`)).filter((p): p is T => p !== undefined)
}

function driver(c: Checker, d: unknown, path: string): DriverConfig | undefined {
  if (!isObj(d)) return c.fail(path, 'must be an object')
  const type = c.oneOf(d, 'type', path, ['modbus', 'bacnet'] as const)
  if (type === 'modbus') {
    c.unknownKeys(d, path, ['type', 'name', 'host', 'port', 'poll_ms', 'timeout_ms', 'pipeline', 'points'])
    return {
      type, name: c.str(d, 'name', path)!, host: c.str(d, 'host', path)!, port: c.num(d, 'port', path, { dflt: 502, min: 1, max: 65535, int: true })!,
      poll_ms: c.num(d, 'poll_ms', path, { dflt: 1000, min: 50, int: true })!, timeout_ms: c.num(d, 'timeout_ms', path, { dflt: 3000, min: 100, int: true })!,
      pipeline: c.num(d, 'pipeline', path, { dflt: 1, min: 1, max: 16, int: true })!,
      points: points(c, d, path, modbusPoint),
    }
  }
  if (type === 'bacnet') {
    c.unknownKeys(d, path, ['type', 'name', 'address', 'device_instance', 'local_port', 'poll_ms', 'cov', 'cov_lifetime_s', 'points'])
    const address = c.str(d, 'address', path)
    if (address !== undefined && !/^[^:\s]+:\d{1,5}$/.test(address)) c.fail(`${path}.address`, `must be host:port, got ${JSON.stringify(address)}`)
    return {
      type, name: c.str(d, 'name', path)!, address: address!, device_instance: c.num(d, 'device_instance', path, { min: 0, max: 4194302, int: true })!,
      local_port: c.num(d, 'local_port', path, { dflt: 47808, min: 1, max: 65535, int: true })!, poll_ms: c.num(d, 'poll_ms', path, { dflt: 5000, min: 100, int: true })!,
      cov: c.bool(d, 'cov', path, true), cov_lifetime_s: c.num(d, 'cov_lifetime_s', path, { dflt: 300, min: 10, max: 86400, int: true })!,
      points: points(c, d, path, bacnetPoint),
    }
  }
  return undefined
}

/** Checks a parsed document; `{ errors }` lists every mistake, one `path: reason` each. */
export function checkEdgeConfig(doc: unknown): { config: EdgeConfig; errors: [] } | { errors: string[] } {
  const c = new Checker()
  if (!isObj(doc)) return { errors: ['(file): must be an object with broker, state_dir and drivers'] }
  c.unknownKeys(doc, '', ['broker', 'state_dir', 'buffer', 'health', 'drivers'])
  let broker: EdgeConfig['broker'] | undefined
  if (!isObj(doc.broker)) c.fail('broker', 'is required (an object with url, account, project)')
  else {
    const b = doc.broker
    c.unknownKeys(b, 'broker', ['url', 'ca', 'account', 'password_env', 'project', 'client_id'])
    const url = c.str(b, 'url', 'broker')
    if (url !== undefined && !/^mqtts:\/\/[^/\s]+:\d+\/?$/.test(url)) c.fail('broker.url', `must be mqtts://HOST:PORT (TLS), got ${JSON.stringify(url)}`)
    const project = c.str(b, 'project', 'broker')
    const [group, handle, ...rest] = (project ?? '').split('/')
    if (project !== undefined && (!group || !handle || rest.length > 0)) c.fail('broker.project', `must be GROUP/HANDLE, got ${JSON.stringify(project)}`)
    broker = {
      url: url!, ca: b.ca === undefined ? undefined : c.str(b, 'ca', 'broker'), account: c.str(b, 'account', 'broker')!,
      password_env: c.str(b, 'password_env', 'broker', 'LINTEL_EDGE_PASSWORD')!, project: { group, handle },
      client_id: b.client_id === undefined ? undefined : c.str(b, 'client_id', 'broker'),
    }
  }
  const stateDir = c.str(doc, 'state_dir', '')
  const buf = isObj(doc.buffer) ? doc.buffer : (doc.buffer === undefined ? {} : (c.fail('buffer', 'must be an object'), {}))
  c.unknownKeys(buf, 'buffer', ['max_bytes', 'lines_per_message', 'in_flight'])
  const health = isObj(doc.health) ? doc.health : (doc.health === undefined ? {} : (c.fail('health', 'must be an object'), {}))
  c.unknownKeys(health, 'health', ['interval_s', 'prefix'])
  const bufferCfg = {
    max_bytes: bytes(c, buf, 'max_bytes', 'buffer', 1024 ** 3),
    lines_per_message: c.num(buf, 'lines_per_message', 'buffer', { dflt: 2000, min: 1, max: 20000, int: true })!,
    in_flight: c.num(buf, 'in_flight', 'buffer', { dflt: 16, min: 1, max: 1000, int: true })!,
  }
  const healthCfg = { interval_s: c.num(health, 'interval_s', 'health', { dflt: 10, min: 1, int: true })!, prefix: c.str(health, 'prefix', 'health', `edge/${broker?.account ?? 'agent'}`)! }
  const drivers: DriverConfig[] = []
  if (!Array.isArray(doc.drivers) || doc.drivers.length === 0) c.fail('drivers', 'must be a non-empty list')
  else doc.drivers.forEach((d, i) => { const x = driver(c, d, `drivers[${i}]`); if (x) drivers.push(x) })
  const ids = new Map<string, string>()
  const names = new Set<string>()
  drivers.forEach((d, i) => {
    if (names.has(d.name)) c.fail(`drivers[${i}].name`, `'${d.name}' is used by an earlier driver`)
    names.add(d.name)
    d.points.forEach((p, j) => {
      const where = `drivers[${i}].points[${j}]`
      if (p.id && ids.has(p.id)) c.fail(`${where}.id`, `'${p.id}' is already the id of ${ids.get(p.id)}`)
      else ids.set(p.id, where)
    })
  })
  const config: EdgeConfig = { broker: broker!, state_dir: stateDir!, buffer: bufferCfg, health: healthCfg, drivers }
  return c.errors.length > 0 ? { errors: c.errors.map((e) => e.replace(/^\./, '')) } : { config, errors: [] }
}
