// read (Haystack "Ops"): records by filter (with limit) or by ids.
import { HaystackOpError, type HaystackOp } from '../op.ts'

export const read: HaystackOp = {
  name: 'read', endpoint: 234, readOnly: true, summary: 'Read entity records by filter or by ids',
  async handler() { throw new HaystackOpError('The op read is not implemented yet') },
}
