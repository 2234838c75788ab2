// Reading a Prometheus exposition text in tests (test/server/prometheus*.test.ts).

/** Samples of an exposition text: `name{labels}` → value. */
export function samples(text: string): Map<string, number> {
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const at = line.lastIndexOf(' ')
    out.set(line.slice(0, at), Number(line.slice(at + 1)))
  }
  return out
}
