// The catalog contract's part for favorites and plot views (catalog/user-views.ts; spec 1
// access rule 9), run by catalogContract on both adapters: per user and project, invisible to
// other users, removed with their user, project or datapoint.
import type { Test } from 'tap'
import type { OpenCatalog } from './contract.ts'

const SPEC = { datapoints: [{ dataPointID: 'a', units: 'degC' }], relative: '24h', samplerate: 'auto', aggregate: 'mean' }

export function userViewsContract(t: Test, open: OpenCatalog): void {
  t.test('favorites and plot views: per user and project, removed with user, project and datapoint', async (t) => {
    const c = await open(t)
    const { company, user } = await c.createCompanyWithAdmin('Acme', { email: 'admin@acme.test', password: 'admin-pass-1' })
    const other = await c.users.create(company.id, { firstName: 'O', lastName: 'T', email: 'o@acme.test', password: 'other-pass-1' })
    const { project: p } = await c.projects.create(company.id, { name: 'P' }, user.id)
    const { project: q } = await c.projects.create(company.id, { name: 'Q' }, user.id)
    const ids = await c.datapoints.ensure(p.id, ['a', 'b'])
    const qa = (await c.datapoints.ensure(q.id, ['a'])).get('a')!
    t.match(await c.userViews.addFavorite(user.id, ids.get('b')!, 20), { datapoint: ids.get('b'), dataPointID: 'b', created_at: 20 })
    await c.userViews.addFavorite(user.id, ids.get('a')!, 30)
    t.match(await c.userViews.addFavorite(user.id, ids.get('a')!, 40), { created_at: 30 }, 'added twice: still one, the first')
    await c.userViews.addFavorite(user.id, qa, 50)
    await c.userViews.addFavorite(other.id, ids.get('a')!, 60)
    t.same((await c.userViews.favorites(user.id, p.id)).map((f) => f.dataPointID), ['b', 'a'], 'oldest first, of the project only')
    t.equal(await c.userViews.countFavorites(user.id, p.id), 2)
    t.same((await c.userViews.favorites(other.id, p.id)).map((f) => f.dataPointID), ['a'], 'each user has their own')
    t.equal(await c.userViews.removeFavorite(user.id, ids.get('b')!), true)
    t.equal(await c.userViews.removeFavorite(user.id, ids.get('b')!), false)

    const v = await c.userViews.createPlotView(user.id, p.id, 'Supply', SPEC, 100)
    t.match(v, { user_id: user.id, project_id: p.id, name: 'Supply', spec: SPEC, created_at: 100, updated_at: 100 })
    t.same(await c.userViews.plotView(user.id, p.id, v.id), v)
    t.equal(await c.userViews.plotView(other.id, p.id, v.id), undefined, 'another user\'s view is not found')
    t.equal(await c.userViews.plotView(user.id, q.id, v.id), undefined, 'nor through another project')
    const w = await c.userViews.createPlotView(user.id, p.id, 'Second', { ...SPEC, relative: undefined, start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z' }, 110)
    t.same((await c.userViews.plotViews(user.id, p.id)).map((x) => x.id), [v.id, w.id])
    t.same(await c.userViews.plotViews(other.id, p.id), [])
    t.equal(await c.userViews.countPlotViews(user.id, p.id), 2)
    const changed = await c.userViews.updatePlotView(v.id, { name: 'Renamed' }, 200)
    t.match(changed, { name: 'Renamed', spec: SPEC, created_at: 100, updated_at: 200 })
    t.equal(await c.userViews.deletePlotView(w.id), true)
    t.equal(await c.userViews.deletePlotView(w.id), false)

    // Removed with the datapoint, the project and the user.
    await c.datapoints.remove([ids.get('a')!])
    t.same(await c.userViews.favorites(other.id, p.id), [], 'a removed datapoint leaves no favorite')
    await c.projects.delete(q.id)
    t.same(await c.userViews.favorites(user.id, q.id), [], 'a deleted project leaves no favorite')
    await c.userViews.addFavorite(user.id, ids.get('b')!, 300)
    await c.users.delete(user.id)
    t.same(await c.userViews.favorites(user.id, p.id), [], 'a deleted user leaves no favorite')
    t.same(await c.userViews.plotViews(user.id, p.id), [], 'nor a plot view')
  })
}
