// The one table of Haystack ops (api/haystack/op.ts). Lane 35-core: about, ops, formats, close,
// read, nav. Lane 35-his replaces the placeholders of hisRead, hisWrite, pointWrite and the
// watches with its ops (same names and registry numbers).
import { HaystackOpError, type HaystackOp } from '../op.ts'
import { about, close, formats, opsOp } from './about.ts'
import { read } from './read.ts'
import { nav } from './nav.ts'

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
  notYet('hisRead', 236, true, 'Read time series data of a point'),
  notYet('hisWrite', 237, false, 'Write time series data to a point'),
  notYet('pointWrite', 238, false, 'Read or write the priority array of a writable point'),
  notYet('watchSub', 239, false, 'Subscribe to points: open or extend a watch'),
  notYet('watchPoll', 240, false, 'Poll a watch for changes'),
  notYet('watchUnsub', 241, false, 'Unsubscribe points from a watch, or close it'),
]
