// The dynamic tags repository (catalog/series-tags.ts): changes only, whatever the order in
// which observations arrive; a second value at the same time replaces the first; bounds per
// series and per project; rows go with their datapoint.
import t from 'tap'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'

async function setup() {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  const { company, user } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'admin-pass-1' })
  const { project } = await catalog.projects.create(company.id, { name: 'P' }, user.id)
  const ids = await catalog.datapoints.ensure(project.id, ['a', 'b'])
  const tags = catalog.seriesTags
  const put = (series: number, time: number, value: string, key = 'k') => tags.record(project.id, [{ series, time, tags: [{ key, value }] }])
  const rows = async (series: number) => (await tags.history(series)).map((r) => `${r.value}@${r.valid_from}`)
  return { catalog, project, a: ids.get('a')!, b: ids.get('b')!, tags, put, rows }
}

t.test('changes only, in any arrival order', async (t) => {
  const { catalog, a, put, rows } = await setup()
  t.teardown(() => catalog.close())
  t.same(await put(a, 10, 'x'), { stored: 1, unchanged: 0, overflow: 0 })
  t.same(await put(a, 20, 'x'), { stored: 0, unchanged: 1, overflow: 0 }, 'same value later: nothing')
  await put(a, 30, 'y')
  t.same(await rows(a), ['x@10', 'y@30'])
  await put(a, 25, 'y')
  t.same(await rows(a), ['x@10', 'y@25'], 'an earlier start of the same value replaces the later row')
  await put(a, 5, 'z')
  t.same(await rows(a), ['z@5', 'x@10', 'y@25'], 'a value before all others')
  await put(a, 10, 'z')
  t.same(await rows(a), ['z@5', 'y@25'], 'a new value at the same time replaces the old; it repeats the previous one, so the row goes')
  await put(a, 10, 'w')
  await put(a, 25, 'w')
  t.same(await rows(a), ['z@5', 'w@10'], 'a replaced value that now repeats the one before it goes too')
})

t.test('bounds per series and per project; rows go with their datapoint', async (t) => {
  const { catalog, a, b, tags, put, rows } = await setup()
  t.teardown(() => catalog.close())
  t.same(await tags.limits(), { perSeries: 1000, perProject: 100000 }, 'defaults')
  await tags.setLimits({ perSeries: 2, perProject: 3 })
  await put(a, 1, 'v1')
  await put(a, 2, 'v2')
  t.same(await put(a, 3, 'v3'), { stored: 0, unchanged: 0, overflow: 1 }, 'the series is full')
  t.same(await put(a, 2, 'v3'), { stored: 1, unchanged: 0, overflow: 0 }, 'replacing a value at its time needs no new row')
  await put(b, 1, 'v1')
  t.same(await put(b, 2, 'v2'), { stored: 0, unchanged: 0, overflow: 1 }, 'the project is full')
  t.same(await rows(b), ['v1@1'])
  await catalog.datapoints.remove([a])
  t.same(await tags.history(a), [], 'deleted with the datapoint')
  t.same(await put(b, 2, 'v2'), { stored: 1, unchanged: 0, overflow: 0 }, 'which frees room in the project')
})
