// about, ops, formats, close (Haystack "Ops"): what this server is and speaks.
import { readFileSync } from 'node:fs'
import { DateTime, Grid, MARKER, Sym, Uri, haystackTz, type Dict } from '../../../protocol/haystack/values.ts'
import { HAYSTACK_JSON_MIME } from '../formats.ts'
import type { HaystackOp } from '../op.ts'

const BOOT_US = Date.now() * 1000
const VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version

export const about: HaystackOp = {
  name: 'about', endpoint: 230, readOnly: true, summary: 'Summary information for the server',
  async handler(ctx) {
    const tz = ctx.project.time_zone
    return Grid.ofRows([{
      haystackVersion: '4.0', tz: haystackTz(tz), serverName: ctx.project.name,
      serverTime: new DateTime(Date.now() * 1000, tz), serverBootTime: new DateTime(BOOT_US, tz),
      productName: 'Lintel', productUri: new Uri('https://github.com/lintel'), productVersion: VERSION,
      vendorName: 'Lintel', vendorUri: new Uri('https://github.com/lintel'),
    }])
  },
}

/** ops: lists the table it is given (ops/index.ts passes the whole table). */
export function opsOp(all: () => readonly HaystackOp[]): HaystackOp {
  return {
    name: 'ops', endpoint: 231, readOnly: true, summary: 'Operations supported by this server',
    async handler() {
      const rows: Dict[] = all().map((op) => {
        const r: Dict = { def: new Sym(`op:${op.name}`), name: op.name, summary: op.summary }
        if (op.readOnly) r.noSideEffects = MARKER
        return r
      })
      return new Grid({}, ['def', 'name', 'summary', 'noSideEffects'].map((name) => ({ name, meta: {} })), rows)
    },
  }
}

export const formats: HaystackOp = {
  name: 'formats', endpoint: 232, readOnly: true, summary: 'Grid formats supported by this server',
  async handler() {
    const rows = ['text/zinc', 'application/json', HAYSTACK_JSON_MIME].map((mime) => ({ mime, receive: MARKER, send: MARKER }))
    return Grid.ofRows(rows)
  },
}

export const close: HaystackOp = {
  name: 'close', endpoint: 233, readOnly: false, summary: 'Close the current session',
  // Lintel keeps no Haystack session: a Bearer token stays valid (DELETE /v2/auth/token revokes it).
  async handler() { return new Grid({}, [], []) },
}
