// Metadata messages on `META/<group>/<handle>` (spec 3, "MQTT broker interface", "Metadata
// messages"): parse and validate the JSON payload into one normalized command, and the pure
// tag-merge rule of the modes. No store access: the broker resolves the project from the
// topic, looks the entity up (creating it only when `createIfMissing`), merges the tags with
// applyTagModes and writes them with `entity.source`. Invalid messages give `{ ok: false }`;
// the broker counts and logs them, the client is told nothing (drops are silent, [Errors] 2).
//
// Scheme detection: an object with the key `entity` is V2; else one with `name` is V1.
//
// V1 (deprecated): flat object. `name` (non-empty string) identifies the entity. `objtype`
// (string, required) decides the type: `device` (case-insensitive, surrounding blanks
// ignored) means a device; ANY other non-empty text means a datapoint, so BACnet object
// types such as `analogInput`/`binaryValue` and a literal `datapoint` all name datapoints.
// `source` is optional (text; a non-string is converted like a tag value). All top-level
// pairs except `name` become tags, including `objtype` and `source` ("all top-level pairs,
// including objtype but excluding name"). Modes: add + update (upsert: the named tags are
// set, other current tags stay; the spec gives V1 no modes, and V1 never removes tags).
// createIfMissing false: an unknown entity means the message is dropped.
//
// V2: `entity` {`id` non-empty string, `type` exactly `device` | `datapoint`, `source`
// non-empty string}, all required. "alphanumeric string" is read as "a text identifier"
// (datapoint identifiers contain slashes and blanks), not as [A-Za-z0-9]+. `mode`: required
// non-empty array of `clean` | `add` | `update` (duplicates harmless). `tags`: required
// array (may be empty) of {`key` non-empty string, `value` any JSON}. `datapoints`:
// optional array of non-empty strings, only for `type: device`. Other top-level keys are
// ignored. createIfMissing true.
//
// Tag values ("Nested structures as tag values are stored as text as they are"): a string
// is kept as is; anything else becomes its compact JSON text (JSON.stringify): 21.5 ->
// '21.5', true -> 'true', null -> 'null', {"a": [1, 2]} -> '{"a":[1,2]}'. Key order is
// kept; insignificant whitespace and number spelling (1.0 -> 1) are not.
//
// Limits: payload <= maxBytes (1 MiB), <= MAX_TAGS tags, keys <= MAX_TAG_KEY_LENGTH
// characters, values <= MAX_TAG_VALUE_LENGTH, identifiers <= MAX_ID_LENGTH, <= MAX_DATAPOINTS
// children. Identifiers (entity ids, child datapoints) with a control character are refused
// (core/identifier.ts, issue 9). The key `__proto__` is refused (it cannot be a key of a plain JS object).

import { controlCharacterIn } from '../core/identifier.ts'
import { MAX_ID_LENGTH } from './line-protocol.ts'

export type EntityType = 'device' | 'datapoint'
export type TagMode = 'clean' | 'add' | 'update'
export interface Tag { key: string; value: string }

export interface MetaCommand {
  scheme: 'v1' | 'v2'
  entity: { id: string; type: EntityType; source?: string }
  modes: ReadonlySet<TagMode>
  tags: Tag[]
  /** V2 devices only: identifiers of child datapoints. */
  datapoints?: string[]
  /** V2: an unknown entity is created; V1: an unknown entity drops the message. */
  createIfMissing: boolean
}

export type MetaParseResult = { ok: true; command: MetaCommand } | { ok: false; error: string }

export const MAX_META_BYTES = 1024 * 1024
export const MAX_TAGS = 1000
export const MAX_TAG_KEY_LENGTH = 200
export const MAX_TAG_VALUE_LENGTH = 10_000
export const MAX_DATAPOINTS = 10_000

const MODES: ReadonlySet<string> = new Set(['clean', 'add', 'update'])
const V1_MODES: ReadonlySet<TagMode> = new Set<TagMode>(['add', 'update'])

/** Thrown inside the parser only; turned into `{ ok: false, error }`. */
class Invalid extends Error {}
const fail = (msg: string): never => { throw new Invalid(msg) }

/** The JSON value of a payload: UTF-8, optional BOM, bounded size. */
export function parseJsonPayload(payload: Buffer, maxBytes: number): unknown {
  if (payload.length === 0) fail('empty payload')
  if (payload.length > maxBytes) fail(`payload larger than ${maxBytes} bytes`)
  let text = payload.toString('utf8')
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  try {
    return JSON.parse(text)
  } catch (e) {
    return fail(`invalid JSON: ${(e as Error).message}`)
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** Text of a tag value (see header). */
export function tagValueText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v)
}

function identifier(v: unknown, what: string): string {
  if (typeof v !== 'string' || v.length === 0) fail(`${what} must be a non-empty string`)
  if ((v as string).length > MAX_ID_LENGTH) fail(`${what} longer than ${MAX_ID_LENGTH} characters`)
  const control = controlCharacterIn(v as string)
  if (control !== undefined) fail(`${what} contains the control character ${control}`)
  return v as string
}

function tag(key: string, value: unknown, where: string): Tag {
  if (key.length === 0) fail(`${where}: empty tag key`)
  if (key.length > MAX_TAG_KEY_LENGTH) fail(`${where}: tag key longer than ${MAX_TAG_KEY_LENGTH} characters`)
  if (key === '__proto__') fail(`${where}: tag key __proto__ is not allowed`)
  // A tag key names what TagAuths filter on (spec 1, rule 5): the identifier rule applies.
  const control = controlCharacterIn(key)
  if (control !== undefined) fail(`${where}: tag key contains the control character ${control}`)
  const text = tagValueText(value)
  if (text.length > MAX_TAG_VALUE_LENGTH) fail(`${where}: tag value longer than ${MAX_TAG_VALUE_LENGTH} characters`)
  return { key, value: text }
}

function parseV1(m: Record<string, unknown>): MetaCommand {
  const id = identifier(m.name, 'name')
  if (!('objtype' in m)) fail('objtype is missing')
  if (typeof m.objtype !== 'string' || m.objtype.trim().length === 0) fail('objtype must be a non-empty string')
  const type: EntityType = (m.objtype as string).trim().toLowerCase() === 'device' ? 'device' : 'datapoint'
  const tags: Tag[] = []
  for (const key of Object.keys(m)) {
    if (key === 'name') continue
    tags.push(tag(key, m[key], `key ${JSON.stringify(key.slice(0, 40))}`))
  }
  if (tags.length > MAX_TAGS) fail(`more than ${MAX_TAGS} tags`)
  const entity: MetaCommand['entity'] = { id, type }
  if (m.source !== undefined) entity.source = tagValueText(m.source)
  return { scheme: 'v1', entity, modes: V1_MODES, tags, createIfMissing: false }
}

function parseV2(m: Record<string, unknown>): MetaCommand {
  const e = m.entity
  if (!isObject(e)) fail('entity must be an object')
  const ent = e as Record<string, unknown>
  const id = identifier(ent.id, 'entity.id')
  if (ent.type !== 'device' && ent.type !== 'datapoint') fail("entity.type must be 'device' or 'datapoint'")
  const type = ent.type as EntityType
  if (typeof ent.source !== 'string' || ent.source.length === 0) fail('entity.source must be a non-empty string')

  if (!Array.isArray(m.mode) || m.mode.length === 0) fail("mode must be a non-empty array of 'clean', 'add', 'update'")
  const modes = new Set<TagMode>()
  for (const x of m.mode as unknown[]) {
    if (typeof x !== 'string' || !MODES.has(x)) fail(`unknown mode: ${JSON.stringify(x)?.slice(0, 40)}`)
    modes.add(x as TagMode)
  }

  if (!Array.isArray(m.tags)) fail('tags must be an array of {key, value}')
  const list = m.tags as unknown[]
  if (list.length > MAX_TAGS) fail(`more than ${MAX_TAGS} tags`)
  const tags: Tag[] = []
  for (let i = 0; i < list.length; i++) {
    const t = list[i]
    if (!isObject(t) || typeof t.key !== 'string' || !('value' in t)) fail(`tags[${i}] must be an object with a string key and a value`)
    const o = t as { key: string; value: unknown }
    tags.push(tag(o.key, o.value, `tags[${i}]`))
  }

  const command: MetaCommand = { scheme: 'v2', entity: { id, type, source: ent.source as string }, modes, tags, createIfMissing: true }
  if (m.datapoints !== undefined) {
    if (type !== 'device') fail('datapoints are only allowed for an entity of type device')
    if (!Array.isArray(m.datapoints)) fail('datapoints must be an array of datapoint identifiers')
    const dps = m.datapoints as unknown[]
    if (dps.length > MAX_DATAPOINTS) fail(`more than ${MAX_DATAPOINTS} datapoints`)
    command.datapoints = dps.map((d, i) => identifier(d, `datapoints[${i}]`))
  }
  return command
}

/** Parses and validates a META payload (see header). */
export function parseMetaMessage(payload: Buffer, opts: { maxBytes?: number } = {}): MetaParseResult {
  try {
    const m = parseJsonPayload(payload, opts.maxBytes ?? MAX_META_BYTES)
    if (!isObject(m)) return { ok: false, error: 'metadata message must be a JSON object' }
    if ('entity' in m) return { ok: true, command: parseV2(m) }
    if ('name' in m) return { ok: true, command: parseV1(m) }
    return { ok: false, error: 'neither a V2 message (entity) nor a V1 message (name)' }
  } catch (e) {
    if (e instanceof Invalid) return { ok: false, error: e.message }
    throw e
  }
}

/**
 * The tag set after applying `incoming` to `current` under `modes` (spec: "clean drops all
 * current tags and assigns only the new ones, add only adds new tags, update only updates
 * existing tags"). "New" and "existing" refer to `current`, before the message:
 *   clean (with or without add/update)  result = exactly the incoming tags
 *   add                                  keys absent from current are added; present keys keep their value
 *   update                               keys present in current get the new value; absent keys are ignored
 *   add + update                         upsert: every incoming key is set; other current keys stay
 *   no mode                              unchanged
 * Within one message a repeated key takes its last value (when the modes let it through).
 * Returns a new object without prototype (so keys like `constructor` are ordinary keys);
 * `current` is not modified.
 */
export function applyTagModes(
  current: Readonly<Record<string, string>>, incoming: readonly Tag[], modes: ReadonlySet<TagMode> | readonly TagMode[],
): Record<string, string> {
  const has = (m: TagMode): boolean => (modes instanceof Set ? modes.has(m) : (modes as readonly TagMode[]).includes(m))
  const out: Record<string, string> = Object.create(null)
  if (has('clean')) {
    for (const t of incoming) out[t.key] = t.value
    return out
  }
  for (const key of Object.keys(current)) out[key] = current[key]
  const add = has('add'), update = has('update')
  for (const t of incoming) {
    if (Object.hasOwn(current, t.key) ? update : add) out[t.key] = t.value
  }
  return out
}
