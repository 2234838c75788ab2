// Haystack filters (protocol/haystack/filter.ts): the standard's own examples
// (project-haystack.org/doc/docHaystack/Filters, "Usage", "Arrow Operator", "Ref Lists"), and the
// same filters evaluated by haystack-core's HFilter (J2 Innovations, an independent
// implementation) over the same records, read by it from our Zinc.
import t from 'tap'
import { HFilter, ZincReader, type HDict, type HGrid, type HRef } from 'haystack-core'
import { compileFilter, parseFilter } from '../../../protocol/haystack/filter.ts'
import { DateTime, Grid, HDate, HTime, MARKER, Num, Ref, Uri, type Dict } from '../../../protocol/haystack/values.ts'
import { zincGrid } from '../../../protocol/haystack/zinc.ts'

const site: Dict = { id: new Ref('siteA'), dis: 'Site A', site: MARKER, geoCity: 'Chicago', geoPostalCode: '23220', area: new Num(12000, 'ft²') }
const site2: Dict = { id: new Ref('siteB'), dis: 'Site B', site: MARKER, geoCity: 'Richmond', geoPostalCode: '23221' }
const ahu: Dict = { id: new Ref('ahu1'), dis: 'AHU-1', equip: MARKER, hvac: MARKER, ahu: MARKER, siteRef: new Ref('siteA') }
const meter: Dict = { id: new Ref('m1'), dis: 'Meter', equip: MARKER, elec: MARKER, meter: MARKER, siteRef: new Ref('siteB') }
const vav: Dict = { id: new Ref('vav1'), dis: 'VAV', equip: MARKER, vav: MARKER, siteRef: new Ref('siteA'), airRef: [new Ref('ahu1'), new Ref('m1')] }
const p1: Dict = { id: new Ref('p1'), dis: 'Temp', point: MARKER, his: MARKER, kind: 'Number', curVal: new Num(72.5, '°F'), equipRef: new Ref('ahu1'), siteRef: new Ref('siteA'), unit: '°F', installed: new HDate('2020-05-01'), occ: new HTime('08:00:00'), writable: MARKER, enabled: true }
const p2: Dict = { id: new Ref('p2'), dis: 'Flow', point: MARKER, his: MARKER, kind: 'Number', curVal: new Num(75), equipRef: new Ref('m1'), siteRef: new Ref('siteB'), installed: new HDate('2021-01-15'), enabled: false, doc: new Uri('http://x/y') }
const p3: Dict = { id: new Ref('p3'), dis: 'Status', point: MARKER, kind: 'Str', curVal: 'on', equipRef: new Ref('gone'), lastWrite: new DateTime(1_700_000_000_000_000, 'America/New_York') }
const RECORDS = [site, site2, ahu, meter, vav, p1, p2, p3]
const byId = new Map(RECORDS.map((r) => [(r.id as Ref).id, r]))

const ours = (filter: string): string[] => {
  const test = compileFilter(parseFilter(filter), (ref) => byId.get(ref.id))
  return RECORDS.filter(test).map((r) => (r.id as Ref).id)
}

t.test('the examples of the standard', async (t) => {
  t.same(ours('site'), ['siteA', 'siteB'], 'site: records with the site tag')
  t.same(ours('geoPostalCode == "23220"'), ['siteA'])
  t.same(ours('geoPostalCode != "23220"'), ['siteB'], '!= only where the tag is there')
  t.same(ours('curVal < 75'), ['p1'], 'a unit on one side only: the numbers are compared')
  t.same(ours('curVal < 75°F'), ['p1'])
  t.same(ours('curVal < 75kW'), [], 'different units: no order')
  t.same(ours('curVal <= 75'), ['p1', 'p2'])
  t.same(ours('curVal > 70'), ['p1', 'p2'])
  t.same(ours('curVal >= 75'), ['p2'])
  t.same(ours('curVal == 72.5'), [], '== needs the same unit')
  t.same(ours('curVal == 72.5°F'), ['p1'])
  t.same(ours('site or equip'), ['siteA', 'siteB', 'ahu1', 'm1', 'vav1'])
  t.same(ours('equip and hvac'), ['ahu1'])
  t.same(ours('equip and not ahu'), ['m1', 'vav1'])
  t.same(ours('equip and siteRef->geoCity == "Chicago"'), ['ahu1', 'vav1'], 'the arrow operator')
  t.same(ours('point and equipRef->siteRef->geoCity == "Richmond"'), ['p2'], 'two arrows')
  t.same(ours('airRef->ahu'), ['vav1'], 'a Ref list matches when any of its refs does')
  t.same(ours('equipRef->equip'), ['p1', 'p2'], 'a Ref to no record: nothing there')
})

t.test('kinds, parentheses and precedence', async (t) => {
  t.same(ours('(site or equip) and siteRef == @siteA'), ['ahu1', 'vav1'])
  t.same(ours('site or equip and siteRef == @siteA'), ['siteA', 'siteB', 'ahu1', 'vav1'], 'and binds tighter than or')
  t.same(ours('installed >= 2021-01-01'), ['p2'])
  t.same(ours('occ < 09:00'), ['p1'])
  t.same(ours('enabled == true'), ['p1'])
  t.same(ours('enabled != true'), ['p2'])
  t.same(ours('enabled < true'), [], 'Bools: only == and !=')
  t.same(ours('doc == `http://x/y`'), ['p2'])
  t.same(ours('kind == "Str" and not his'), ['p3'])
  t.same(ours('dis > "S"'), ['siteA', 'siteB', 'vav1', 'p1', 'p3'], 'Str order')
  t.same(ours('dis < "S"'), ['ahu1', 'm1', 'p2'])
  t.same(ours('curVal == "on"'), ['p3'], 'a Str never equals a Num')
  t.same(ours('lastWrite < 2024-01-01T00:00:00Z'), ['p3'])
  t.same(ours('area > 10000ft²'), ['siteA'])
  t.same(ours('^site'), ['siteA', 'siteB'], '^name without defs: the marker')
  t.same(ours('  point   and\n his '), ['p1', 'p2'], 'white space')
  t.same(ours('notes'), [], 'a name starting with a keyword is a name')
})

t.test('errors name the position', async (t) => {
  for (const bad of ['', 'site and', 'curVal >', '(site', 'Site', 'a == b', 'a === 1', 'site )', '@x']) {
    t.throws(() => parseFilter(bad), { name: 'FilterError' }, JSON.stringify(bad))
  }
  t.throws(() => parseFilter('site and'), /Invalid filter at character 9: unexpected the end/)
  t.throws(() => parseFilter('('.repeat(101) + 'a' + ')'.repeat(101)), /deeper than 100/)
  t.throws(() => parseFilter('a or '.repeat(3000) + 'a'), /too long/)
  t.ok(parseFilter('('.repeat(100) + 'a' + ')'.repeat(100)), '100 levels parse')
})

t.test('the same answers as haystack-core', async (t) => {
  const grid = ZincReader.readValue(zincGrid(Grid.ofRows(RECORDS))) as HGrid
  const dicts = grid.getRows() as HDict[]
  const theirsById = new Map(dicts.map((d) => [(d.get('id') as HRef).value, d]))
  const theirs = (filter: string): string[] => {
    const f = new HFilter(filter)
    return dicts.filter((d) => f.eval({ dict: d, resolve: (ref: HRef) => theirsById.get(ref.value) })).map((d) => (d.get('id') as HRef).value)
  }
  const filters = ['site', 'not site', 'geoPostalCode == "23220"', 'geoPostalCode != "23220"', 'curVal < 75°F', 'curVal <= 75', 'curVal > 70', 'curVal >= 75',
    'site or equip', 'equip and hvac', 'equip and not ahu', 'equip and siteRef->geoCity == "Chicago"', 'point and equipRef->siteRef->geoCity == "Richmond"',
    '(site or equip) and siteRef == @siteA', 'site or equip and siteRef == @siteA', 'installed >= 2021-01-01', 'installed < 2021-01-01', 'occ < 09:00',
    'enabled == true', 'enabled != true', 'doc == `http://x/y`', 'kind == "Str" and not his', 'dis > "S"', 'dis <= "Site B"', 'curVal == "on"', 'curVal != 75',
    'area > 10000ft²', 'equipRef->equip', 'equipRef->hvac or equipRef->elec', 'not equipRef->siteRef', 'siteRef != @siteA']
  for (const f of filters) t.same(ours(f), theirs(f), f)
})
