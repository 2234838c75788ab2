// Metadata V2 device tags (spec 3) are shown where the project's datapoints are listed
// (GET /v2/project/{project_id}, issue 15 spec drift 6), filtered by the caller's TagAuths.
import t from 'tap'
import { addProject, addUser, platform } from '../helpers/platform.ts'

t.test('devices with their tags and readable child datapoints', async (t) => {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'Devices')
  // What the META path stores for a V2 device message (ingest/mqtt/meta-handler.ts).
  const tags = p.catalog.entityTags
  const ahu = (await tags.entity(pid, 'device', 'AHU 1', true))!
  await tags.replaceTags('device', ahu, { vendor: 'Acme', model: '{"series":"X"}' }, ['vendor', 'model'], 'edge')
  await tags.linkDatapoints(pid, ahu, ['ahu1/supply', 'ahu1/return'])
  const meter = (await tags.entity(pid, 'device', 'Meter', true))!
  await tags.replaceTags('device', meter, { kind: 'electricity' }, ['kind'], 'edge')
  await tags.linkDatapoints(pid, meter, ['meter/energy'])
  await tags.entity(pid, 'device', 'Spare', true)

  const all = await p.call(p.admin, 'GET', `/v2/project/${pid}`)
  t.equal(all.status, 200)
  t.same(all.body.devices, [
    { device_id: 'AHU 1', tags: { vendor: 'Acme', model: '{"series":"X"}' }, datapoints: ['ahu1/supply', 'ahu1/return'] },
    { device_id: 'Meter', tags: { kind: 'electricity' }, datapoints: ['meter/energy'] },
    { device_id: 'Spare', tags: {}, datapoints: [] },
  ], 'a caller reading all datapoints sees every device')

  const role = await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, {
    name: 'supply-only', authed_endpoints: [30], authed_tags: [{ key: 'dataPointID', value: 'ahu1/supply', read: true, write: false }],
  })
  const u = await addUser(p, 'narrow')
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${u.id}`)
  const narrow = await p.call(u, 'GET', `/v2/project/${pid}`)
  t.equal(narrow.status, 200)
  t.same(narrow.body.datapoints.map((d: { dataPointID: string }) => d.dataPointID), ['ahu1/supply'])
  t.same(narrow.body.devices, [{ device_id: 'AHU 1', tags: { vendor: 'Acme', model: '{"series":"X"}' }, datapoints: ['ahu1/supply'] }],
    'only devices with a readable datapoint, and only those datapoints')
})
