// One HTTP byte range (RFC 9110 §14.1.2) of a file of `size` bytes: `bytes=a-b`, `bytes=a-`,
// `bytes=-n`. Several ranges or a malformed header are ignored (the whole file is served,
// which RFC 9110 allows); a syntactically valid range outside the file is unsatisfiable (416).
export type RangeResult = { kind: 'all' } | { kind: 'part'; start: number; end: number } | { kind: 'unsatisfiable' }

export function parseRange(header: string | undefined, size: number): RangeResult {
  if (header === undefined) return { kind: 'all' }
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'all' }
  if (m[1] === '') {
    const n = Number(m[2])
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' }
    return { kind: 'part', start: Math.max(0, size - n), end: size - 1 }
  }
  const start = Number(m[1])
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
  if (m[2] !== '' && Number(m[2]) < start) return { kind: 'all' }
  if (start >= size) return { kind: 'unsatisfiable' }
  return { kind: 'part', start, end }
}
