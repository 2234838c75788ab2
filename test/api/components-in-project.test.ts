// Mapped components (issue 12 item 2), endpoints 113-124: create, map pins onto datapoints,
// fill attributes validated by value_type, suggestions from units and names; access through
// the grant, a narrower TagAuth and from another company; clean-up with datapoints and projects.
import t, { type Test } from 'tap'
import { addProject, addUser, platform, type Platform } from '../helpers/platform.ts'

async function setup(t: Test) {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'HQ')
  const ids = await p.catalog.datapoints.ensure(pid, ['hc1/flow_temp', 'hc1/return_temp', 'weather/outdoor', 'hc1/pump', 'secret/VL_Temperatur'])
  for (const [dp, unit] of [['hc1/flow_temp', '°C'], ['hc1/return_temp', 'degC'], ['weather/outdoor', '°C'], ['secret/VL_Temperatur', '°C']]) await p.catalog.datapoints.setTag(ids.get(dp)!, 'unit', unit)
  for (const dp of ['hc1/flow_temp', 'hc1/return_temp', 'weather/outdoor', 'hc1/pump']) await p.catalog.datapoints.setTag(ids.get(dp)!, 'room', 'A')
  return { p, pid, ids, base: `/v2/project/${pid}` }
}

const create = async (p: Platform, base: string, body: object = { component_id: 5, display_name: 'HC 1' }) => p.call(p.admin, 'POST', `${base}/componentInProject`, body)

t.test('create, map, fill, read, change, unmap, delete', async (t) => {
  const { p, base, pid } = await setup(t)
  const made = await create(p, base, { component_id: 5, display_name: 'HC 1', tags: { floor: '1' } })
  t.equal(made.status, 201, JSON.stringify(made.body))
  const cip = made.body.resource
  t.match(cip, { project_id: pid, nameEN: 'Heating circuit', display_name: 'HC 1', component: { id: 5, alphanumeric_id: 'heating_circuit' }, attributes: [], tags: { floor: '1' } })
  t.same(cip.pins.map((x: any) => [x.alphanumeric_id, x.dataPointID]), [['flow_temp', null], ['return_temp', null], ['flow_temp_setpoint', null], ['outdoor_temp', null], ['pump_state', null], ['valve_position', null]])
  t.equal((await create(p, base, { component_id: 99 })).body.error, 'Unknown component_id 99: GET /v2/components lists the library')

  const pins = { componentinproject_id: cip.id, pins: [{ pin_alphanumeric_id: 'flow_temp', dataPointID: 'hc1/flow_temp' }, { pin_id: 502, dataPointID: 'hc1/return_temp' }, { pin_alphanumeric_id: 'outdoor_temp', dataPointID: 'weather/outdoor' }] }
  const mapped = await p.call(p.admin, 'POST', `${base}/componentInProject/pin/datapoint`, pins)
  t.equal(mapped.status, 201)
  t.same(mapped.body.resource.pins.filter((x: any) => x.dataPointID).map((x: any) => `${x.alphanumeric_id}=${x.dataPointID}`), ['flow_temp=hc1/flow_temp', 'return_temp=hc1/return_temp', 'outdoor_temp=weather/outdoor'])
  const again = await p.call(p.admin, 'POST', `${base}/componentInProject/pin/datapoint`, { componentinproject_id: cip.id, pins: [{ pin_alphanumeric_id: 'flow_temp', dataPointID: 'hc1/return_temp' }] })
  t.same([again.status, again.body.error], [409, `Pin 'flow_temp' of component in project ${cip.id} is already mapped; change it with PUT`])
  const bad = async (body: object) => (await p.call(p.admin, 'POST', `${base}/componentInProject/pin/datapoint`, { componentinproject_id: cip.id, ...body })).body.error
  t.equal(await bad({ pins: [{ pin_alphanumeric_id: 'co2', dataPointID: 'x' }] }), "Component 'heating_circuit' has no pin 'co2'")
  t.equal(await bad({ pins: [{ dataPointID: 'x' }] }), 'Each pin needs pin_id or pin_alphanumeric_id')
  t.equal(await bad({ pins: [{ pin_alphanumeric_id: 'pump_state', dataPointID: 'nope' }] }), `Datapoint 'nope' not found in project ${pid}`)
  const put = await p.call(p.admin, 'PUT', `${base}/componentInProject/pin/datapoint`, { componentinproject_id: cip.id, pins: [{ pin_alphanumeric_id: 'pump_state', dataPointID: 'hc1/pump' }, { pin_alphanumeric_id: 'flow_temp', dataPointID: 'hc1/flow_temp' }] })
  t.equal(put.status, 200)
  t.equal(put.body.resource.pins.find((x: any) => x.alphanumeric_id === 'pump_state').dataPointID, 'hc1/pump')

  const attrs = await p.call(p.admin, 'POST', `${base}/componentInProject/attribute`, { componentinproject_id: cip.id, attributes: [{ key: 'design_outdoor_temp', value: '-12' }, { key: 'design_flow_temp', value: 70 }] })
  t.equal(attrs.status, 201)
  t.same(attrs.body.resource.attributes, [{ alphanumeric_id: 'heating_circuit_design_outdoor_temp', id: 551, key: 'design_outdoor_temp', value: '-12' }, { alphanumeric_id: 'heating_circuit_design_flow_temp', id: 552, key: 'design_flow_temp', value: '70' }])
  const attr = async (method: 'POST' | 'PUT', attributes: object[], cipId = cip.id) => p.call(p.admin, method, `${base}/componentInProject/attribute`, { componentinproject_id: cipId, attributes })
  t.same((await attr('POST', [{ key: 'design_outdoor_temp', value: '-14' }])).body.error, `Attribute 'design_outdoor_temp' of component in project ${cip.id} is already set; change it with PUT`)
  t.same((await attr('PUT', [{ key: 'design_outdoor_temp', value: 'cold' }])).body.error, "Attribute 'design_outdoor_temp': 'cold' is not a number (value_type float)")
  t.same((await attr('PUT', [{ key: 'colour', value: 'red' }])).body.error, "Component 'heating_circuit' has no attribute 'colour'")
  t.equal((await attr('PUT', [{ attribute_id: 551, value: '-14' }])).body.resource.attributes[0].value, '-14')
  const room = (await create(p, base, { component_id: 6 })).body.resource
  t.equal(room.display_name, 'Room', 'the display name defaults to the component name')
  t.equal((await attr('POST', [{ key: 'occupied_hours', value: { mon: ['07:00', '18:00'] } }], room.id)).body.resource.attributes[0].value, '{"mon":["07:00","18:00"]}', 'json given as JSON')
  t.equal((await attr('PUT', [{ key: 'occupied_hours', value: '{mon' }], room.id)).body.error, "Attribute 'occupied_hours': '{mon' is not valid JSON (value_type json)")

  t.same((await p.call(p.admin, 'GET', `${base}/componentsInProject`)).body, { items: [
    { id: cip.id, component_id: 5, project_id: pid, nameEN: 'Heating circuit', display_name: 'HC 1' },
    { id: room.id, component_id: 6, project_id: pid, nameEN: 'Room', display_name: 'Room' },
  ] })
  t.match((await p.call(p.admin, 'PUT', `${base}/componentInProject/${cip.id}`, { display_name: 'HC one' })).body.resource, { display_name: 'HC one', tags: { floor: '1' } })
  const unmap = await p.call(p.admin, 'DELETE', `${base}/componentInProject/pin/datapoint?componentinproject_id=${cip.id}&pin_alphanumeric_id=pump_state`)
  t.same([unmap.status, unmap.body.resource.pins.find((x: any) => x.alphanumeric_id === 'pump_state').dataPointID], [200, null])
  t.equal((await p.call(p.admin, 'DELETE', `${base}/componentInProject/pin/datapoint?componentinproject_id=${cip.id}&pin_alphanumeric_id=pump_state`)).body.error, `Pin 'pump_state' of component in project ${cip.id} is not mapped`)
  t.equal((await p.call(p.admin, 'DELETE', `${base}/componentInProject/attribute?componentinproject_id=${cip.id}&key=design_flow_temp`)).body.resource.attributes.length, 1)
  t.equal((await p.call(p.admin, 'DELETE', `${base}/componentInProject/attribute?componentinproject_id=${cip.id}&key=design_flow_temp`)).status, 404)
  t.equal((await p.call(p.admin, 'DELETE', `${base}/componentInProject/${room.id}`)).status, 200)
  t.equal((await p.call(p.admin, 'GET', `${base}/componentInProject/${room.id}`)).body.error, `Component in project ${room.id} not found in project ${pid}`)
})

t.test('suggestions rank readable datapoints per pin from unit and name', async (t) => {
  const { p, base } = await setup(t)
  const cip = (await create(p, base)).body.resource
  const res = await p.call(p.admin, 'GET', `${base}/componentInProject/${cip.id}/suggestions?limit=2`)
  t.equal(res.status, 200)
  const by = Object.fromEntries(res.body.items.map((x: any) => [x.alphanumeric_id, x]))
  t.same(by.flow_temp.candidates.map((c: any) => c.dataPointID), ['hc1/flow_temp', 'secret/VL_Temperatur'], 'English and German abbreviations')
  t.match(by.flow_temp.candidates[0], { score: 0.975, unit: '°C', reasons: ['unit °C (probability 0.95)', 'name has flow, temp (2 of 2 word groups)'] })
  t.same(by.return_temp.candidates[0].dataPointID, 'hc1/return_temp', 'degC is °C')
  t.same(by.outdoor_temp.candidates[0].dataPointID, 'weather/outdoor')
  t.same(by.pump_state.candidates[0].dataPointID, 'hc1/pump', 'a state without a unit')
})

t.test('access: no grant, a narrower TagAuth, another company; clean-up with datapoints and projects', async (t) => {
  const { p, base, pid, ids } = await setup(t)
  const cip = (await create(p, base)).body.resource
  await p.call(p.admin, 'POST', `${base}/componentInProject/pin/datapoint`, { componentinproject_id: cip.id, pins: [{ pin_alphanumeric_id: 'flow_temp', dataPointID: 'hc1/flow_temp' }, { pin_alphanumeric_id: 'return_temp', dataPointID: 'secret/VL_Temperatur' }] })

  const u = await addUser(p, 'roomA')
  t.equal((await p.call(u, 'GET', `${base}/componentsInProject`)).body.error, 'Unauthorized access to endpoint: 113 - GET /v2/project/{project_id}/componentsInProject')
  t.equal((await p.call(u, 'POST', `${base}/componentInProject/pin/datapoint`, {})).body.error, 'Unauthorized access to endpoint: 118 - POST /v2/project/{project_id}/componentInProject/pin/datapoint', 'the grant before the body')
  const all = Array.from({ length: 12 }, (_, i) => 113 + i)
  const role = await p.call(p.admin, 'POST', `${base}/role`, { name: 'room A', authed_endpoints: all, authed_tags: [{ key: 'room', value: 'A', read: true, write: false }] })
  await p.call(p.admin, 'POST', `${base}/role/${role.body.resource.id}/user/${u.id}`)
  const detail = (await p.call(u, 'GET', `${base}/componentInProject/${cip.id}`)).body
  t.same(detail.pins.filter((x: any) => x.dataPointID !== null).map((x: any) => x.dataPointID), ['hc1/flow_temp'], 'a pin mapped outside the TagAuth is hidden')
  t.equal(detail.pins.find((x: any) => x.alphanumeric_id === 'return_temp').dataPointID, null)
  const refused = await p.call(u, 'PUT', `${base}/componentInProject/pin/datapoint`, { componentinproject_id: cip.id, pins: [{ pin_alphanumeric_id: 'outdoor_temp', dataPointID: 'secret/VL_Temperatur' }] })
  t.same([refused.status, refused.body.error], [403, "No read access to datapoint 'secret/VL_Temperatur'"])
  t.equal((await p.call(u, 'PUT', `${base}/componentInProject/pin/datapoint`, { componentinproject_id: cip.id, pins: [{ pin_alphanumeric_id: 'return_temp', dataPointID: 'hc1/return_temp' }] })).body.error, "No read access to the datapoint mapped to pin 'return_temp'")
  t.equal((await p.call(u, 'DELETE', `${base}/componentInProject/pin/datapoint?componentinproject_id=${cip.id}&pin_alphanumeric_id=return_temp`)).status, 403)
  t.equal((await p.call(u, 'DELETE', `${base}/componentInProject/${cip.id}`)).status, 403, 'not deleted by a user who cannot see all of it')
  t.equal((await p.call(u, 'PUT', `${base}/componentInProject/pin/datapoint`, { componentinproject_id: cip.id, pins: [{ pin_alphanumeric_id: 'outdoor_temp', dataPointID: 'weather/outdoor' }] })).status, 200)
  const sugg = (await p.call(u, 'GET', `${base}/componentInProject/${cip.id}/suggestions`)).body.items
  t.notOk(JSON.stringify(sugg).includes('secret/'), 'suggestions never name an unreadable datapoint')

  const other = { email: 'admin@other.test', password: 'other-pass-1' }
  await p.catalog.createCompanyWithAdmin('Other', other)
  t.equal((await p.call(other, 'GET', `${base}/componentInProject/${cip.id}`)).status, 404, 'another company does not see the project')
  const { id: theirs } = await addProject(p, other, 'Theirs')
  t.equal((await p.call(other, 'GET', `/v2/project/${theirs}/componentInProject/${cip.id}`)).status, 404, 'nor the component through its own project')

  await p.catalog.datapoints.remove([ids.get('hc1/flow_temp')!])
  t.equal((await p.call(p.admin, 'GET', `${base}/componentInProject/${cip.id}`)).body.pins[0].dataPointID, null, 'a deleted datapoint unmaps its pin')
  t.equal((await p.call(p.admin, 'DELETE', `/v2/project/${pid}`)).status, 200)
  t.equal(await p.catalog.componentsInProject.find(cip.id), undefined, 'a deleted project takes its components along')
})
