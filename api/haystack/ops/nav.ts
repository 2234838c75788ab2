// nav (Haystack "Ops", nav): the tree a client browses. Without `navId`: the site. The site's
// navId: its equips, then the points in no equip. An equip's navId: its points. A point: no
// children. Every row that has children carries `navId`. An unknown navId (or a point the
// caller cannot read) is an error grid.
import { Ref, type Dict } from '../../../protocol/haystack/values.ts'
import { loadModel, recordsGrid } from '../model.ts'
import { HaystackOpError, type HaystackOp } from '../op.ts'

const withNav = (r: Dict): Dict => ({ ...r, navId: r.id })

export const nav: HaystackOp = {
  name: 'nav', endpoint: 235, readOnly: true, summary: 'Navigate the site, its equips and their points',
  async handler(ctx, request) {
    const navId = request.rows[0]?.navId
    if (navId !== undefined && navId !== null && !(navId instanceof Ref)) throw new HaystackOpError('nav: navId must be a Ref')
    const model = await loadModel(ctx)
    if (!navId) return recordsGrid([withNav(model.site)])
    const rec = model.byId.get(navId.id)
    if (!rec) throw new HaystackOpError(`nav: unknown navId @${navId.id}`)
    if (rec === model.site) return recordsGrid([...model.equips.map(withNav), ...model.pointsOf.get('')!])
    if (rec.equip !== undefined) return recordsGrid(model.pointsOf.get(navId.id) ?? [])
    return recordsGrid([])
  },
}
