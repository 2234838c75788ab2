// A project's page of datapoints (api/datapoint-pages.ts) is read in chunks for a caller who
// reads all: the chunks must join into exactly the page an OFFSET/LIMIT read gives, across
// chunk boundaries, at the end of the project and past it.
import t from 'tap'
import { datapointPage } from '../../api/datapoint-pages.ts'
import { addProject, platform } from '../helpers/platform.ts'

t.test('pages read in chunks equal the slices of the id order', async (t) => {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'Paged')
  await p.catalog.datapoints.ensure(pid, Array.from({ length: 1_234 }, (_, i) => `dp/${i}`))
  const all = (await p.catalog.datapoints.listByProject(pid)).map((d) => d.id)
  t.equal(all.length, 1_234)
  for (const [page, perPage] of [[1, 2000], [2, 600], [3, 600], [1, 500], [2, 501], [5, 300], [9, 200]]) {
    const { datapoints, meta } = await datapointPage(p.catalog, pid, page, perPage, 'all')
    t.same(datapoints.map((d) => d.id), all.slice((page - 1) * perPage, page * perPage), `page ${page} of ${perPage}`)
    t.same(meta, { current_page: page, items_per_page: perPage, total_items: 1_234, total_pages: Math.ceil(1_234 / perPage) })
  }
})
