// MQTT topics of a project (spec 3, "MQTT broker interface": "Topic types", "Authorization
// by topic", "Client identifiers"). Pure functions; the broker calls them from its
// authorizePublish / authorizeSubscribe / authenticate hooks.
//
// Topic types:
//   <group>/<handle>[/<postfix>]   time series; the postfix (any number of levels, also
//                                  empty ones) only routes, it never selects the series
//   META/<group>/<handle>          metadata (exactly three levels)
//   CONTROLS/<group>/<handle>      controls (exactly three levels)
// Decisions:
// - `META` and `CONTROLS` are reserved as first level: `META/x` or `META/g/h/more` is no
//   topic of ours (undefined), never a time-series topic of a group called META. The
//   operator must not assign these names as load-balancing groups.
// - group and handle must be non-empty; `g/h/` is a time-series topic with postfix ''.
// - topics starting with `$` (broker internals, `$SYS`) and topics containing the wildcards
//   `+` / `#` (not publishable, [MQTT-3.3.2-2]) are not ours.
//
// Access ([Authorization by topic]): an account holds one project prefix (group, handle)
// with read or write rights; write implies read ([Authentication] 3). Its namespace is every
// topic whose first two levels are exactly group/handle (any postfix), plus
// META/group/handle and CONTROLS/group/handle. Publishing needs write and a topic of that
// namespace. Subscribing needs read and a filter that can ONLY match topics of the
// namespace: so its first levels must be the literal prefix (`g/h`, `META/g/h`,
// `CONTROLS/g/h`); wildcards may follow (`g/h/#` also matches `g/h` itself, which is ours).
// `#`, `+/h/#`, `g/+/#`, `g/#`, `$SYS/#`, `$share/...` (MQTT 5 shared subscriptions) and
// other prefixes are refused.

export type TopicInfo =
  | { kind: 'timeseries'; group: string; handle: string; postfix?: string }
  | { kind: 'meta'; group: string; handle: string }
  | { kind: 'controls'; group: string; handle: string }

export type MqttRights = 'read' | 'write'

/** What one MQTT account may access: one project prefix and its rights. */
export interface MqttGrant { group: string; handle: string; rights: MqttRights }

export const META = 'META'
export const CONTROLS = 'CONTROLS'

/** Longest client identifier we accept, in UTF-8 bytes (1-23 alphanumerics are guaranteed). */
export const MAX_CLIENT_ID_BYTES = 256

/** Classifies a publish topic; undefined when it is none of the platform's topic types. */
export function classifyTopic(topic: string): TopicInfo | undefined {
  if (topic.length === 0 || topic.charCodeAt(0) === 36 /* $ */) return undefined
  if (topic.indexOf('+') >= 0 || topic.indexOf('#') >= 0) return undefined
  const s1 = topic.indexOf('/')
  if (s1 <= 0) return undefined
  const first = topic.slice(0, s1)
  if (first === META || first === CONTROLS) {
    const s2 = topic.indexOf('/', s1 + 1)
    if (s2 < 0 || s2 === s1 + 1 || s2 === topic.length - 1 || topic.indexOf('/', s2 + 1) >= 0) return undefined
    const group = topic.slice(s1 + 1, s2)
    const handle = topic.slice(s2 + 1)
    return first === META ? { kind: 'meta', group, handle } : { kind: 'controls', group, handle }
  }
  const s2 = topic.indexOf('/', s1 + 1)
  const handle = s2 < 0 ? topic.slice(s1 + 1) : topic.slice(s1 + 1, s2)
  if (handle.length === 0) return undefined
  return s2 < 0
    ? { kind: 'timeseries', group: first, handle }
    : { kind: 'timeseries', group: first, handle, postfix: topic.slice(s2 + 1) }
}

/**
 * Whether a client identifier is acceptable: 1 to MAX_CLIENT_ID_BYTES UTF-8 bytes, without
 * `/`, `+`, `#` ([Client identifiers]) and without U+0000 (never allowed in MQTT strings,
 * [MQTT-1.5.3-2]). Empty ids are refused here: the broker substitutes a generated id
 * before authentication when the protocol allows an empty one.
 */
export function validClientId(id: string, maxBytes = MAX_CLIENT_ID_BYTES): boolean {
  if (id.length === 0 || id.length > maxBytes) return false
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i)
    if (c === 47 || c === 43 || c === 35 || c === 0) return false
  }
  return Buffer.byteLength(id, 'utf8') <= maxBytes
}

/** A grant with an empty or wildcard group/handle grants nothing (defence against bad data). */
function usable(g: MqttGrant): boolean {
  return g.group.length > 0 && g.handle.length > 0 && g.group !== META && g.group !== CONTROLS &&
    !/[/+#]/.test(g.group) && !/[/+#]/.test(g.handle) && g.group.charCodeAt(0) !== 36
}

/** Whether the grant may publish to `topic` (needs write rights). */
export function canPublish(grant: MqttGrant, topic: string): boolean {
  if (grant.rights !== 'write' || !usable(grant)) return false
  const info = classifyTopic(topic)
  return info !== undefined && info.group === grant.group && info.handle === grant.handle
}

/**
 * Checks MQTT filter syntax: `#` only alone as the last level, `+` only alone in a level
 * ([MQTT-4.7.1-2], [MQTT-4.7.1-3]); returns the levels, or undefined when malformed.
 */
export function filterLevels(filter: string): string[] | undefined {
  if (filter.length === 0) return undefined
  const levels = filter.split('/')
  for (let i = 0; i < levels.length; i++) {
    const l = levels[i]
    if (l.indexOf('#') >= 0 && (l !== '#' || i !== levels.length - 1)) return undefined
    if (l.indexOf('+') >= 0 && l !== '+') return undefined
  }
  return levels
}

/** Whether the grant may subscribe to `filter` (needs read rights; write implies read). */
export function canSubscribe(grant: MqttGrant, filter: string): boolean {
  if ((grant.rights !== 'read' && grant.rights !== 'write') || !usable(grant)) return false
  if (filter.charCodeAt(0) === 36 /* $ */) return false
  const levels = filterLevels(filter)
  if (levels === undefined) return false
  // The literal prefix must be matched level by level; a wildcard in it could reach
  // another project.
  if (levels[0] === META || levels[0] === CONTROLS) {
    return levels.length >= 3 && levels[1] === grant.group && levels[2] === grant.handle
  }
  return levels.length >= 2 && levels[0] === grant.group && levels[1] === grant.handle
}
