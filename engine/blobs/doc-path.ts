// Paths of documents (spec 1 "Documents": a file entry's `path` is folder and name) and the
// `expiry` of links. Pure. Folders are implicit: a folder exists while a path lies in it, so
// "created if missing" needs no record. Segments are checked rather than escaped: no '.',
// '..', backslash or control character, so a path can never name anything outside its space.
import { InvalidInputError } from '../../core/errors.ts'
import { controlCharacterIn, quoteIdentifier } from '../../core/identifier.ts'

const MAX_PATH = 1024
/** Bidirectional controls (ALM, LRM, RLM, embeddings, overrides, isolates): they make a name
 *  display as another one (`invoice\u202Efdp.exe` shows as `invoiceexe.pdf`). */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

/** `text` JSON-quoted for a message, bidi controls escaped too so the message reads as sent. */
const quoted = (text: string) => quoteIdentifier(text).replace(new RegExp(BIDI.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

// Look-alike names (issue 29): a path is taken in Unicode NFC, so `Café` typed as `e` + U+0301
// (NFD, as macOS file names come) and as U+00E9 name the same file instead of two that look
// alike; bidi controls are refused with a 400 naming them.
function segments(raw: string, what: string): string[] {
  const bidi = BIDI.exec(raw)?.[0]
  if (bidi !== undefined) {
    throw new InvalidInputError(`Invalid ${what} ${quoted(raw)}: it contains the bidirectional control U+${bidi.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}, which makes a name display as another; remove it`)
  }
  const text = raw.normalize('NFC')
  const parts = text.split('/').filter((s) => s !== '')
  for (const s of parts) {
    // Control characters by the identifier rule (C0, DEL and C1; issue 9 item 9); the path is
    // quoted as JSON in the message, so none of them is echoed.
    if (s === '.' || s === '..' || s.includes('\\') || controlCharacterIn(s) || s.length > 255) {
      throw new InvalidInputError(`Invalid ${what} ${quoted(raw)}: segments must not be '.' or '..', nor contain backslashes or control characters, and have at most 255 characters`)
    }
  }
  return parts
}

/** A folder as given in `folder` (may be empty: the top of the space), without outer slashes. */
export function normalizeFolder(folder: string | undefined): string {
  return segments(folder ?? '', 'folder').join('/')
}

/** A path as given in `path`: at least one segment. */
export function normalizePath(path: string): string {
  const p = segments(path, 'path').join('/')
  if (p === '') throw new InvalidInputError('path must name a file or folder, got an empty path')
  if (p.length > MAX_PATH) throw new InvalidInputError(`path must have at most ${MAX_PATH} characters`)
  return p
}

/** The path of an uploaded file: its folder and the file name the form part carries. */
export function uploadPath(folder: string, filename: string | undefined): string {
  const name = (filename ?? '').trim()
  if (name === '' || name.includes('/')) throw new InvalidInputError(`The uploaded file needs a plain file name (form field file, filename="..."), got ${quoted(filename ?? '')}`)
  return normalizePath(folder === '' ? name : `${folder}/${name}`)
}

export const DEFAULT_EXPIRY_S = 60 * 60
export const MAX_EXPIRY_S = 7 * 24 * 60 * 60 // the longest a presigned S3 link (SigV4) can live

/** `expiry` of GET /file: a number with s, m, h or d (a bare number is minutes), e.g. `30m`. */
export function parseExpiry(text: string | undefined): number {
  if (text === undefined || text === '') return DEFAULT_EXPIRY_S
  const m = /^\s*(\d{1,9})\s*([smhd]?)\s*$/.exec(text)
  const seconds = m ? Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[(m[2] || 'm') as 's' | 'm' | 'h' | 'd'] : NaN
  if (!(seconds >= 1 && seconds <= MAX_EXPIRY_S)) {
    throw new InvalidInputError(`expiry must be a duration such as 30m (s, m, h or d; a bare number is minutes) from 1s to ${MAX_EXPIRY_S / 86400}d, got '${text}'`)
  }
  return seconds
}
