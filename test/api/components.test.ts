// Endpoints 110-112 (issue 12 item 1): the global component library, readable by every
// authenticated user (User scope: no grant, no company data), refused without credentials.
import t from 'tap'
import { addUser, platform } from '../helpers/platform.ts'

t.test('components, pins and attribute definitions', async (t) => {
  const p = await platform(t)
  const list = await p.call(p.admin, 'GET', '/v2/components')
  t.equal(list.status, 200)
  t.ok(list.body.length >= 12)
  t.same(list.body[4], { id: 5, alphanumeric_id: 'heating_circuit', nameDE: 'Heizkreis', nameEN: 'Heating circuit' })
  const pins = await p.call(p.admin, 'GET', '/v2/component/5/pins')
  t.equal(pins.status, 200)
  t.match(pins.body[0], {
    id: 501, alphanumeric_id: 'flow_temp', location: 'right', nameDE: 'Vorlauftemperatur', nameEN: 'Flow temperature',
    pin_attributes: [{ id: 5010, key: 'L1_analog_digital', probability: 1, value: 'analog' }],
  })
  t.match(pins.body[0].pin_attributes, [{}, {}, {}, {}, { key: 'L4_type', value: 'temperature/water/flow' }, { key: 'L5_unit', value: '°C', probability: 0.95 }])
  t.notOk('keywords' in pins.body[0], 'the suggestion vocabulary is not part of the pin')
  const attrs = await p.call(p.admin, 'GET', '/v2/component/5/attributeDefinitions')
  t.same(attrs.body.map((a: any) => a.key), ['design_outdoor_temp', 'design_flow_temp', 'design_return_temp', 'heating_limit_temp'])
  t.match(attrs.body[0], { id: 551, alphanumeric_id: 'heating_circuit_design_outdoor_temp', value_type: 'float', unit: '°C', default: '-12' })

  const missing = await p.call(p.admin, 'GET', '/v2/component/999/pins')
  t.same([missing.status, missing.body.error], [404, 'Component 999 not found'])
  t.equal((await p.call(p.admin, 'GET', '/v2/component/x/attributeDefinitions')).status, 400)
})

t.test('User scope: any user of any company reads it without a grant; nobody without credentials', async (t) => {
  const p = await platform(t)
  const nobody = await addUser(p, 'norole')
  t.equal((await p.call(nobody, 'GET', '/v2/components')).status, 200, 'no role needed: global reference data')
  t.equal((await p.call(nobody, 'GET', '/v2/component/1/pins')).status, 200)
  const other = { email: 'admin@other.test', password: 'other-pass-1' }
  await p.catalog.createCompanyWithAdmin('Other', other)
  t.same((await p.call(other, 'GET', '/v2/component/1/attributeDefinitions')).body, (await p.call(p.admin, 'GET', '/v2/component/1/attributeDefinitions')).body, 'the same for every company')
  for (const url of ['/v2/components', '/v2/component/1/pins', '/v2/component/1/attributeDefinitions']) {
    t.equal((await p.call(null, 'GET', url)).status, 401, url)
  }
})
