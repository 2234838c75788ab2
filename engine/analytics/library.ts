// The component library (spec 3 "Analytics": abstract components, pin placeholders, attribute
// definitions; issue 12 item 1): reference data versioned as JSON files in data/components/,
// one file per component, loaded and checked once at start. A file that does not fit the
// schema, or ids that collide, fail the start with one line naming the file and the problem.
// The library is global (the same for every company): it is data, not a catalog table.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Type, type Static } from '@sinclair/typebox'
import { Ajv } from 'ajv'

export const PIN_ATTRIBUTE_KEYS = ['L1_analog_digital', 'L2_virtual', 'L3_direction', 'L4_type', 'L5_unit'] as const
export const VALUE_TYPES = ['string', 'json', 'float'] as const

/** A string enum (ajv then names the allowed values in its error). */
const OneOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] })
const AlnumId = Type.String({ pattern: '^[a-z][a-z0-9_]*$', maxLength: 100 })
const Text = Type.String({ minLength: 1, maxLength: 200 })
const PinAttributeT = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  key: OneOf(PIN_ATTRIBUTE_KEYS),
  // Slash-separated path (`temperature/water/flow`); '' for "no unit" of a state.
  value: Type.String({ maxLength: 200, pattern: '^[^/](?:.*[^/])?$|^$' }),
  probability: Type.Number({ minimum: 0, maximum: 1 }),
}, { additionalProperties: false })
const PinT = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  alphanumeric_id: AlnumId,
  nameEN: Text,
  nameDE: Text,
  location: OneOf(['left', 'right', 'bottom'] as const),
  pin_attributes: Type.Array(PinAttributeT, { minItems: 1 }),
  /** Groups of words one of which a matching datapoint's name holds (suggestions only; not served). */
  keywords: Type.Array(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { minItems: 1 }), { minItems: 1 }),
}, { additionalProperties: false })
const AttributeDefinitionT = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  alphanumeric_id: AlnumId,
  key: AlnumId,
  nameEN: Text,
  nameDE: Text,
  value_type: OneOf(VALUE_TYPES),
  unit: Type.Optional(Type.String({ maxLength: 20 })),
  default: Type.Optional(Type.String({ maxLength: 2000 })),
}, { additionalProperties: false })
const ComponentFileT = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  alphanumeric_id: AlnumId,
  nameEN: Text,
  nameDE: Text,
  pins: Type.Array(PinT, { minItems: 1 }),
  attributeDefinitions: Type.Array(AttributeDefinitionT),
}, { additionalProperties: false })

export type PinAttribute = Static<typeof PinAttributeT>
export type Pin = Static<typeof PinT>
export type AttributeDefinition = Static<typeof AttributeDefinitionT>
export type Component = Static<typeof ComponentFileT>

/** A broken library file: one line, naming the file and what is wrong. */
export class LibraryError extends Error {}

export const DEFAULT_LIBRARY_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'data', 'components')

export class ComponentLibrary {
  private readonly byId = new Map<number, Component>()
  private readonly byAlnum = new Map<string, Component>()

  constructor (readonly components: readonly Component[]) {
    for (const c of components) { this.byId.set(c.id, c); this.byAlnum.set(c.alphanumeric_id, c) }
  }

  get(id: number): Component | undefined { return this.byId.get(id) }
  byAlphanumericId(aid: string): Component | undefined { return this.byAlnum.get(aid) }

  /** A pin of the component by id or alphanumeric id. */
  pin(c: Component, ref: { pin_id?: number; pin_alphanumeric_id?: string }): Pin | undefined {
    return c.pins.find((p) => p.id === ref.pin_id || p.alphanumeric_id === ref.pin_alphanumeric_id)
  }

  /** An attribute definition of the component by id, key or alphanumeric id. */
  attribute(c: Component, ref: { attribute_id?: number; key?: string }): AttributeDefinition | undefined {
    return c.attributeDefinitions.find((a) => a.id === ref.attribute_id || a.key === ref.key || a.alphanumeric_id === ref.key)
  }
}

/** Reads and checks every `*.json` of `dir` (default data/components); throws LibraryError. */
export function loadComponentLibrary(dir: string = DEFAULT_LIBRARY_DIR): ComponentLibrary {
  const check = new Ajv({ allErrors: false, strict: false }).compile(ComponentFileT)
  let names: string[]
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort()
  } catch (err) {
    throw new LibraryError(`component library: cannot read ${dir}: ${(err as Error).message}`)
  }
  if (names.length === 0) throw new LibraryError(`component library: no *.json files in ${dir}`)
  const components: Component[] = []
  const seen = { component: new Map<number, string>(), alnum: new Map<string, string>(), pin: new Map<number, string>(), attr: new Map<number, string>(), pinAttr: new Map<number, string>() }
  const unique = <K>(m: Map<K, string>, key: K, what: string, file: string) => {
    const before = m.get(key)
    if (before !== undefined) throw new LibraryError(`component library: ${file}: ${what} ${String(key)} is also used in ${before}`)
    m.set(key, file)
  }
  for (const name of names) {
    let data: unknown
    try {
      data = JSON.parse(readFileSync(join(dir, name), 'utf8'))
    } catch (err) {
      throw new LibraryError(`component library: ${name}: not valid JSON: ${(err as Error).message}`)
    }
    if (!check(data)) {
      const e = check.errors![0]
      const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues
      throw new LibraryError(`component library: ${name}: ${e.instancePath || '/'} ${e.message}${allowed ? ` (${allowed.join(', ')})` : ''}`)
    }
    const c = data as Component
    unique(seen.component, c.id, 'component id', name)
    unique(seen.alnum, c.alphanumeric_id, 'component alphanumeric_id', name)
    const pinNames = new Set<string>()
    for (const p of c.pins) {
      unique(seen.pin, p.id, 'pin id', name)
      if (pinNames.has(p.alphanumeric_id)) throw new LibraryError(`component library: ${name}: pin alphanumeric_id ${p.alphanumeric_id} appears twice`)
      pinNames.add(p.alphanumeric_id)
      for (const a of p.pin_attributes) unique(seen.pinAttr, a.id, 'pin attribute id', name)
    }
    const keys = new Set<string>()
    for (const a of c.attributeDefinitions) {
      unique(seen.attr, a.id, 'attribute definition id', name)
      if (keys.has(a.key)) throw new LibraryError(`component library: ${name}: attribute key ${a.key} appears twice`)
      keys.add(a.key)
      if (a.default !== undefined) {
        const problem = valueProblem(a.value_type, a.default)
        if (problem) throw new LibraryError(`component library: ${name}: default of ${a.key}: ${problem}`)
      }
    }
    components.push(c)
  }
  return new ComponentLibrary(components.sort((a, b) => a.id - b.id))
}

/** Why `value` is not a value of the type (undefined: it is). Floats: a finite decimal number. */
export function valueProblem(type: (typeof VALUE_TYPES)[number], value: string): string | undefined {
  if (type === 'float') {
    const n = value.trim() === '' ? NaN : Number(value)
    return Number.isFinite(n) ? undefined : `'${value}' is not a number (value_type float)`
  }
  if (type === 'json') {
    try { JSON.parse(value) } catch { return `'${value.length > 60 ? value.slice(0, 60) + '...' : value}' is not valid JSON (value_type json)` }
  }
  return undefined
}
