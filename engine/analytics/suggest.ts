// Pin suggestions (issue 12 item 2): rank a project's datapoints for each pin of a component
// from what their metadata says (the `unit` tag that MQTT metadata sets, the identifier and the
// `name`/`description` tags) against the pin's L5_unit alternatives and its vocabulary,
// weighted by the probabilities of the library. Pure: no I/O.
//   score = 0.5 * P(L5_unit = the datapoint's unit) + 0.5 * P(L4_type) * share of the pin's
//           keyword groups found in the datapoint's name
import type { Pin } from './library.ts'

export interface Candidate { dataPointID: string; score: number; unit: string | null; reasons: string[] }
export interface SuggestInput { dataPointID: string; tags: Record<string, string> }

/** Unit spellings seen in building automation, reduced to one form. */
const UNIT_ALIASES: Record<string, string> = {
  degc: '°c', '°c': '°c', celsius: '°c', c: '°c', 'deg c': '°c', kelvin: 'k', k: 'k', percent: '%', '%': '%', pct: '%',
  'w/m2': 'w/m²', 'w/m²': 'w/m²', 'm3/h': 'm³/h', 'm³/h': 'm³/h', '%rh': '%', rh: '%',
}
export const normalizeUnit = (u: string): string => {
  const x = u.trim().toLowerCase()
  return UNIT_ALIASES[x] ?? x
}

const unitOf = (tags: Record<string, string>): string | null => {
  for (const [k, v] of Object.entries(tags)) if (k.toLowerCase() === 'unit' || k.toLowerCase() === 'einheit') return v
  return null
}

/** Lower-case words of the identifier and the naming tags (camelCase and separators split). */
function words(d: SuggestInput): { tokens: Set<string>; text: string } {
  const parts = [d.dataPointID, d.tags.name ?? '', d.tags.description ?? '']
  const text = parts.join(' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()
  return { tokens: new Set(text.split(/[^a-z0-9äöüß]+/).filter((w) => w !== '')), text }
}

/** Words naming a medium; a name of the other medium than the pin's (L4_type) halves the score. */
const MEDIA: Record<string, string[]> = {
  water: ['water', 'wasser', 'hc', 'hk', 'heizkreis', 'boiler', 'kessel'],
  air: ['air', 'luft', 'ahu', 'rlt', 'zuluft', 'abluft', 'aussenluft'],
}

/** Whether a keyword is in the name: a whole word, or (5 letters and more) inside a compound. */
const found = (kw: string, w: { tokens: Set<string>; text: string }) => w.tokens.has(kw) || (kw.length >= 5 && w.text.includes(kw))

export function scorePin(pin: Pin, d: SuggestInput): Candidate {
  const reasons: string[] = []
  const unit = unitOf(d.tags)
  let unitScore = 0
  const units = pin.pin_attributes.filter((a) => a.key === 'L5_unit')
  const match = units.find((a) => normalizeUnit(a.value) === normalizeUnit(unit ?? ''))
  if (match) {
    unitScore = match.probability
    reasons.push(unit === null ? `no unit, as expected with probability ${match.probability}` : `unit ${unit} (probability ${match.probability})`)
  }
  const w = words(d)
  const hits = pin.keywords.map((group) => group.find((kw) => found(kw, w))).filter((x): x is string => x !== undefined)
  const typeP = pin.pin_attributes.find((a) => a.key === 'L4_type')?.probability ?? 1
  const nameScore = typeP * hits.length / pin.keywords.length
  if (hits.length > 0) reasons.push(`name has ${hits.join(', ')} (${hits.length} of ${pin.keywords.length} word groups)`)
  let score = 0.5 * unitScore + 0.5 * nameScore
  const medium = pin.pin_attributes.find((a) => a.key === 'L4_type')?.value.split('/')[1]
  const other = medium === 'water' ? 'air' : medium === 'air' ? 'water' : undefined
  const clash = other && MEDIA[other].find((kw) => [...w.tokens].some((tok) => tok.replace(/\d+$/, '') === kw))
  if (clash) {
    score /= 2
    reasons.push(`name has ${clash}: ${other}, the pin is ${medium} (score halved)`)
  }
  return { dataPointID: d.dataPointID, score: Math.round(score * 1000) / 1000, unit, reasons }
}

/**
 * The best `limit` candidates of the pin, best first (ties by identifier). A candidate's name
 * must hold a word of the pin's first keyword group (the distinctive one: `flow`, `outdoor`;
 * later groups such as `temp` are shared by many pins).
 */
export function suggest(pin: Pin, datapoints: readonly SuggestInput[], limit: number): Candidate[] {
  const first = pin.keywords[0]
  return datapoints.filter((d) => { const w = words(d); return first.some((kw) => found(kw, w)) })
    .map((d) => scorePin(pin, d)).filter((c) => c.score > 0)
    .sort((a, b) => b.score - a.score || (a.dataPointID < b.dataPointID ? -1 : 1)).slice(0, limit)
}
