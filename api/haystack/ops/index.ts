// The one table of Haystack ops (api/haystack/op.ts). Lane 35-core: about, ops, formats, close,
// read, nav. Lane 35-his replaces the placeholders of hisRead, hisWrite, pointWrite and the
// watches with its ops (same names and registry numbers).
import { HaystackOpError, type HaystackOp } from '../op.ts'
import { about, close, formats, opsOp } from './about.ts'
import { read } from './read.ts'
import { nav } from './nav.ts'
import { hisRead } from './his-read.ts'
import { hisWrite } from './his-write.ts'
import { pointWrite } from './point-write.ts'
import { watchPoll, watchSub, watchUnsub } from './watch.ts'

function notYet(name: string, endpoint: number, readOnly: boolean, summary: string): HaystackOp {
  return { name, endpoint, readOnly, summary, handler: async () => { throw new HaystackOpError(`The op ${name} is not implemented yet`) } }
}

export const haystackOps: HaystackOp[] = [
  about,
  opsOp(() => haystackOps),
  formats,
  close,
  read,
  nav,
  hisRead,
  hisWrite,
  pointWrite,
  watchSub,
  watchPoll,
  watchUnsub,
]
