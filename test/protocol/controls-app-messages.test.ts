// The controls-app messages (protocol/controls-app-messages.ts): what the builders make passes
// the generic CONTROLS parse and the strict readers; each broken field is refused by name.
import t from 'tap'
import { parseControlsMessage } from '../../protocol/controls-message.ts'
import {
  appDef, appLog, appState, appSync, isAppMessage, readAppDef, readAppLog, readAppState, readAppSync,
} from '../../protocol/controls-app-messages.ts'
import { scheduleConfig } from '../../core/schedule/config.ts'

const CONFIG = { week: [{ days: ['mon'], time: '06:00', values: { sp: 21 } }], reset_values: { sp: null } }
const DEF = appDef({
  app_id: 'app-1', revision: 3, desired: 'run', algorithm: 'schedule', zone: 'Europe/Berlin', pins: { sp: 'hc1.supply_sp' },
  configuration: scheduleConfig(CONFIG), holidays: [{ name: 'Christmas', date: '2026-12-25', yearly: true }],
})
const wire = (m: object) => {
  const p = parseControlsMessage(Buffer.from(JSON.stringify(m)))
  if (!p.ok) throw new Error(p.error)
  return p.message as Record<string, unknown>
}

t.test('round trips through the wire', async (t) => {
  t.same(readAppDef(wire(DEF)), { ok: true, message: DEF })
  const partial = readAppDef(wire({ ...DEF, configuration: CONFIG, variation: 'two-point' }))
  t.match(partial, { ok: true, message: { variation: 'two-point', configuration: { priority: 13, alive_timeout_s: 900, auto_recovery: true, holiday: [] } } }, 'defaults filled in')
  const del = readAppDef(wire({ type: 'APPDEF', swop_version: 0.1, app_id: 'app-1', revision: 4, desired: 'delete', algorithm: 'schedule', zone: 'UTC', pins: {} }))
  t.match(del, { ok: true, message: { desired: 'delete', holidays: [] } }, 'a delete needs no configuration')
  t.match(readAppDef(wire({ ...DEF, desired: 'delete', configuration: { week: [] } })), { ok: true }, 'nor is the one it carries read')
  const st = appState({ app_id: 'app-1', revision: 3, state: 'Failed', reason: 'unknown datapoint hc1.supply_sp' })
  t.same(readAppState(wire(st)), { ok: true, message: st })
  const log = appLog({ app_id: 'app-1', seq: 1, time: '2026-03-29T01:00:00.000Z', kind: 'write', datapoint: 'hc1.supply_sp', value: null, priority: 13, message: 'released' })
  t.same(readAppLog(wire(log)), { ok: true, message: log })
  const sync = appSync([{ app_id: 'app-1', revision: 3 }])
  t.same(readAppSync(wire(sync)), { ok: true, message: sync })
  t.same(readAppSync(wire(appSync([]))), { ok: true, message: { type: 'APPSYNC', swop_version: 0.1, apps: [] } })
  t.ok([DEF, st, log, sync].every(isAppMessage))
  t.notOk(isAppMessage({ type: 'NEWSPT' }))
})

t.test('APPDEF refuses each broken field by name', async (t) => {
  const cases: [object, RegExp][] = [
    [{ type: 'APPLOG' }, /not an APPDEF/],
    [{ swop_version: '0.1' }, /swop_version/],
    [{ app_id: '' }, /app_id/],
    [{ app_id: 'x'.repeat(101) }, /app_id/],
    [{ revision: -1 }, /revision/],
    [{ revision: 1.5 }, /revision/],
    [{ desired: 'pause' }, /desired must be run, stop or delete/],
    [{ algorithm: 'pid' }, /algorithm must be one of schedule/],
    [{ variation: 7 }, /variation/],
    [{ zone: 'Mars/Olympus' }, /zone/],
    [{ pins: ['sp'] }, /pins must be an object/],
    [{ pins: { sp: '' } }, /pins.sp must be a datapoint id/],
    [{ configuration: { ...CONFIG, priority: 17 } }, /APPDEF: configuration.priority must be an integer from 1 to 16/],
    [{ configuration: 'x' }, /APPDEF: configuration must be a JSON object/],
    [{ configuration: { week: [{ days: ['mon'], time: '06:00', values: { fan: 1 } }] } }, /configuration.week\[0\].values.fan not a mapped pin/],
    [{ holidays: [{ name: 'x', date: '2026-02-30' }] }, /APPDEF: holidays\[0\].date must be a date/],
    [{ holidays: undefined }, /APPDEF: holidays must be an array/],
  ]
  for (const [patch, err] of cases) t.match(readAppDef({ ...DEF, ...patch } as Record<string, unknown>), { ok: false, error: err }, JSON.stringify(patch))
})

t.test('APPSTATE, APPLOG and APPSYNC are read strictly', async (t) => {
  const st = { type: 'APPSTATE', swop_version: 0.1, app_id: 'a', revision: 1, state: 'Running' }
  for (const [patch, err] of [[{ state: 'running' }, /state must be one of Running/], [{ revision: 'x' }, /revision/], [{ reason: 5 }, /reason/], [{ app_id: 3 }, /app_id/]] as [object, RegExp][]) {
    t.match(readAppState({ ...st, ...patch }), { ok: false, error: err }, JSON.stringify(patch))
  }
  const log = { type: 'APPLOG', swop_version: 0.1, app_id: 'a', seq: 1, time: '2026-01-01T00:00:00Z', kind: 'state', message: 'Running' }
  t.match(readAppLog(log), { ok: true })
  const bad: [object, RegExp][] = [
    [{ seq: 0 }, /seq must be an integer from 1/], [{ seq: 1.5 }, /seq/], [{ time: '2026-01-01 00:00' }, /time must be an ISO UTC time/],
    [{ time: '2026-01-01T00:00:00+01:00' }, /time/], [{ kind: 'info' }, /kind must be one of write/], [{ datapoint: '' }, /datapoint/],
    [{ value: 'on' }, /value must be a number or null/], [{ priority: 17 }, /priority/], [{ message: undefined }, /message/], [{ message: 'x'.repeat(2001) }, /message/],
  ]
  for (const [patch, err] of bad) t.match(readAppLog({ ...log, ...patch }), { ok: false, error: err }, JSON.stringify(patch))
  t.match(readAppSync({ type: 'APPSYNC', swop_version: 0.1, apps: {} }), { ok: false, error: /apps must be an array/ })
  t.match(readAppSync({ type: 'APPSYNC', swop_version: 0.1, apps: [{ app_id: 'a' }] }), { ok: false, error: /apps\[0\]/ })
})
