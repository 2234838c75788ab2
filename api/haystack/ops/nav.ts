// nav (Haystack "Ops"): the site, its equips, their points.
import { HaystackOpError, type HaystackOp } from '../op.ts'

export const nav: HaystackOp = {
  name: 'nav', endpoint: 235, readOnly: true, summary: 'Navigate the site, its equips and their points',
  async handler() { throw new HaystackOpError('The op nav is not implemented yet') },
}
