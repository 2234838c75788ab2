// Alerts per datapoint are bounded (issue 29; LINTEL_ALERTS_PER_DATAPOINT): beyond the bound a
// new alert on that datapoint is refused with 413 naming it and nothing is stored; other
// datapoints are not affected.
import t from 'tap'
import { livePlatform } from '../helpers/live-platform.ts'

t.test('a third alert on a datapoint bounded at two is refused with 413; another datapoint still takes one', async (t) => {
  const { http, project } = await livePlatform(t, { LINTEL_ALERTS_PER_DATAPOINT: '2' })
  const pid = await project('Alerts')
  const alert = (dataPointID: string, name: string) => http('POST', `/v2/alert/threshold?project_id=${pid}`, {
    name, dataPointID, thresholds: { warn: { upper: 26 } }, notification: { log: true },
  })
  t.equal((await alert('ahu/temp', 'one')).status, 201)
  t.equal((await alert('ahu/temp', 'two')).status, 201)
  const third = await alert('ahu/temp', 'three')
  t.equal(third.status, 413)
  t.match(third.body.error, "Too many alerts: datapoint 'ahu/temp' already has 2 alerts, at most 2 (LINTEL_ALERTS_PER_DATAPOINT)")
  t.equal((await alert('ahu/other', 'four')).status, 201, 'another datapoint is not affected')
  const listed = await http('GET', `/v2/project/${pid}/alerts?dataPointID=ahu/temp`)
  t.equal(listed.body.meta.total_items, 2, 'nothing stored from the refused request')
})
