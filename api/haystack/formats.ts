// Content negotiation of the Haystack API (Haystack "HTTP API", Content Negotiation): the
// request grid's format from Content-Type, the answer's from Accept. Zinc is `text/zinc`
// (also `text/plain`, which older clients send); JSON (Hayson) is `application/json` or
// `application/vnd.haystack+json` (what haystack-nclient sends and expects back: the answer
// names the type the client asked for). No Accept, or `*/*`: JSON.
import { readHaysonGrid, HAYSON_END, haysonHeader, haysonRow, haysonText } from '../../protocol/haystack/hayson.ts'
import { readZincGrid, zincGrid, zincHeader, zincRow, ZINC_MIME } from '../../protocol/haystack/zinc.ts'
import type { Col, Dict, Grid } from '../../protocol/haystack/values.ts'

export const HAYSTACK_JSON_MIME = 'application/vnd.haystack+json'

export interface Format {
  name: 'zinc' | 'json'
  /** The Content-Type of the answer (with charset). */
  mime: string
  grid(g: Grid): string
  header(meta: Dict, cols: readonly Col[]): string
  row(row: Dict, cols: readonly Col[], first: boolean): string
  end: string
}

const zinc = (mime: string): Format => ({
  name: 'zinc', mime: `${mime}; charset=utf-8`, grid: zincGrid, header: zincHeader, row: (r, cols) => zincRow(r, cols), end: '',
})
const json = (mime: string): Format => ({
  name: 'json', mime: `${mime}; charset=utf-8`, grid: haysonText, header: haysonHeader, row: (r, _cols, first) => haysonRow(r, first), end: HAYSON_END,
})

export const FORMATS = { zinc: zinc(ZINC_MIME), json: json('application/json'), haystackJson: json(HAYSTACK_JSON_MIME) }

/** The format of an Accept header, or undefined when it accepts none of ours (406). */
export function answerFormat(accept: string | undefined): Format | undefined {
  if (accept === undefined || accept.trim() === '') return FORMATS.json
  const ranges = accept.split(',').map((part, i) => {
    const [type, ...params] = part.trim().toLowerCase().split(';').map((s) => s.trim())
    const q = params.find((p) => p.startsWith('q='))
    return { type, q: q === undefined ? 1 : Number(q.slice(2)) || 0, i }
  }).filter((r) => r.q > 0).sort((a, b) => b.q - a.q || a.i - b.i)
  for (const r of ranges) {
    if (r.type === ZINC_MIME || r.type === 'text/plain') return zinc(r.type)
    if (r.type === 'application/json' || r.type === HAYSTACK_JSON_MIME) return json(r.type)
    if (r.type === '*/*' || r.type === 'application/*') return FORMATS.json
    if (r.type === 'text/*') return FORMATS.zinc
  }
  return undefined
}

/** Content types of request bodies, by their base type. */
export const ZINC_BODY_TYPES = [ZINC_MIME, 'text/plain']
export const JSON_BODY_TYPES = ['application/json', HAYSTACK_JSON_MIME]

/** The request grid of a body already read: text (Zinc) or parsed JSON. */
export function requestGrid(body: unknown): Grid {
  if (typeof body === 'string') return readZincGrid(body)
  return readHaysonGrid(body)
}
