// Large Haystack answers are written in chunks (api/haystack/routes.ts): a read of 1,500 points
// POSTed as Zinc comes back whole in both formats, decoded by haystack-core.
import t from 'tap'
import { HGrid, ZincReader } from 'haystack-core'
import { addProject, basic, platform } from '../../helpers/platform.ts'

t.test('a read of 1,500 points, POSTed, streamed in Zinc and JSON', async (t) => {
  const p = await platform(t)
  const pid = (await addProject(p, p.admin, 'Big')).id
  const body = Object.fromEntries(Array.from({ length: 1500 }, (_, i) => [`dp-${String(i).padStart(4, '0')}`, [{ time: '2024-01-01T00:00:00Z', value: i }]]))
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, body)).status, 200)
  await p.app.listen({ port: 0, host: '127.0.0.1' })
  const base = `http://127.0.0.1:${(p.app.server.address() as { port: number }).port}`
  for (const accept of ['text/zinc', 'application/json']) {
    const res = await fetch(`${base}/haystack/${pid}/read`, { method: 'POST', headers: { authorization: basic(p.admin), accept, 'content-type': 'text/zinc' }, body: 'ver:"3.0"\nfilter\n"point and dataPointID >= \\"dp-0500\\""\n' })
    t.equal(res.status, 200)
    const text = await res.text()
    const grid = accept === 'text/zinc' ? ZincReader.readValue(text) as HGrid : HGrid.make(JSON.parse(text))
    const ids = grid.getRows().map((d) => String(d.get('dataPointID')))
    t.equal(ids.length, 1000, `${accept}: every matching point`)
    t.equal(ids[0], 'dp-0500')
    t.equal(ids[999], 'dp-1499')
  }
})
