// The broker's datapoint tag cache (ingest/mqtt/tag-cache.ts) on a catalog of the port: loaded
// per project, kept current by the catalog's `datapoint-tags` changes, bounded, and failing
// closed (undefined) for a project it does not hold.
import t, { type Test } from 'tap'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { DATAPOINT_TAGS } from '../../catalog/changes.ts'
import { DatapointTagCache } from '../../ingest/mqtt/tag-cache.ts'
import { waitFor } from '../helpers/wait.ts'

async function setup(t: Test, maxTagged?: number) {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  const { company, user } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'admin-pass-1' })
  const project = async (name: string, tagged: Record<string, string>) => {
    const { project: p } = await catalog.projects.create(company.id, { name }, user.id)
    const ids = await catalog.datapoints.ensure(p.id, Object.keys(tagged))
    for (const [id, room] of Object.entries(tagged)) await catalog.datapoints.setTag(ids.get(id)!, 'room', room)
    return { id: p.id, ids }
  }
  const errors: unknown[] = []
  const cache = new DatapointTagCache(catalog, maxTagged, (err) => errors.push(err))
  t.teardown(async () => { cache.close(); await catalog.close() })
  return { catalog, cache, project, errors }
}

t.test('loaded per project, then current with the catalog\'s changes', async (t) => {
  const { catalog, cache, project } = await setup(t)
  const p = await project('P', { a: 'A', b: 'B' })
  t.equal(cache.peek(p.id, 'a'), undefined, 'not loaded: no answer (the caller refuses), the load starts')
  await cache.load(p.id)
  t.same(cache.peek(p.id, 'a'), { room: 'A' })
  t.same(cache.peek(p.id, 'unknown'), {}, 'a datapoint without tags (or none at all) has none')

  await catalog.datapoints.setTag(p.ids.get('a')!, 'room', 'Z')
  await waitFor(() => cache.peek(p.id, 'a')?.room === 'Z', { what: 'the tag change to reach the cache' })
  const c = (await catalog.datapoints.ensure(p.id, ['c'])).get('c')!
  await catalog.transaction((tx) => tx.entityTags.replaceTags('datapoint', c, { room: 'C' }, ['room'], 'edge'))
  await waitFor(() => cache.peek(p.id, 'c')?.room === 'C', { what: 'a META-style change of a new datapoint' })
  await catalog.datapoints.remove([p.ids.get('b')!])
  await waitFor(() => Object.keys(cache.peek(p.id, 'b') ?? { x: 1 }).length === 0, { what: 'a removed datapoint to lose its tags' })

  cache.set(p.id, c, 'c', { room: 'D' })
  t.same(cache.peek(p.id, 'c'), { room: 'D' }, 'a change made by this broker applies at once')

  await catalog.changes.publish(DATAPOINT_TAGS, { project: p.id })
  await waitFor(() => cache.size === 0, { what: 'the project to be dropped' })
  await catalog.changes.publish(DATAPOINT_TAGS, { reconnected: true })
  await cache.load(p.id)
  t.same(cache.peek(p.id, 'c'), { room: 'C' }, 'loaded again from the catalog')
})

t.test('bounded by tagged datapoints: the least recently used project goes, and fails closed', async (t) => {
  const { cache, project } = await setup(t, 5)
  const p = await project('P', { a: 'A', b: 'B' })
  const q = await project('Q', { x: 'X', y: 'Y' })
  await cache.load(p.id)
  await cache.load(q.id)
  t.equal(cache.size, 1, 'two projects of 3 units each exceed 5')
  t.equal(cache.peek(p.id, 'a'), undefined, 'the evicted project answers nothing')
  await cache.load(p.id)
  t.same(cache.peek(p.id, 'a'), { room: 'A' })
})
