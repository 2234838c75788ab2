// A live platform (HTTP, MQTT over TLS) with one project enabled for setpoint writing, a
// heating circuit (library component 5) whose setpoint and valve pins are mapped to writable
// datapoints with write bounds, and an edge device simulated by a real MQTT client logged in
// with the project's edge account: it records the APPDEF messages the platform sends and
// publishes APPSTATE, APPLOG and APPSYNC as the edge agent would (issue 31).
import type { Test } from 'tap'
import type { MqttClient } from 'mqtt'
import { livePlatform, until } from './live-platform.ts'
import type { Login } from './platform.ts'

export const FLOW_SP = 'hc1.flow_sp'
export const VALVE = 'hc1.valve'
export const FLOW = 'hc1.flow'

export const WEEK = {
  priority: 13,
  reset_values: { flow_temp_setpoint: null },
  week: [
    { days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '06:00', values: { flow_temp_setpoint: 21 } },
    { days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '22:00', values: { flow_temp_setpoint: 16 } },
  ],
  holiday: [{ time: '00:00', values: { flow_temp_setpoint: 16 } }],
}

export type Def = Record<string, any>

/** A simulated edge device: a real MQTT client on the project's CONTROLS topic. */
export async function simulatedEdge(connect: (who: { username: string; password: string }) => Promise<MqttClient>, account: { username: string; password: string }, topic: string) {
  const client = await connect(account)
  const defs: Def[] = []
  client.on('message', (_t, payload) => {
    const m = JSON.parse(payload.toString())
    if (m.type === 'APPDEF') defs.push(m)
  })
  await client.subscribeAsync(topic, { qos: 1 })
  const send = (m: object) => client.publishAsync(topic, JSON.stringify({ swop_version: 0.1, ...m }), { qos: 1 })
  return {
    client, defs,
    /** The first APPDEF (from `from` on) that `pred` accepts, waited for within `ms`. */
    def: async (pred: (d: Def) => boolean, what: string, ms = 10_000, from = 0): Promise<Def> => {
      let found: Def | undefined
      if (!(await until(() => (found = defs.slice(from).find(pred)) !== undefined, ms))) throw new Error(`no APPDEF ${what} within ${ms} ms; got ${JSON.stringify(defs)}`)
      return found!
    },
    state: (appId: string, revision: number, state: string, reason?: string) => send({ type: 'APPSTATE', app_id: appId, revision, state, ...(reason ? { reason } : {}) }),
    log: (appId: string, seq: number, e: object) => send({ type: 'APPLOG', app_id: appId, seq, time: new Date().toISOString(), ...e }),
    sync: (apps: { app_id: string; revision: number }[]) => send({ type: 'APPSYNC', apps }),
  }
}

export async function controlsSite(t: Test, env: Record<string, string> = {}) {
  const live = await livePlatform(t, env)
  const { catalog } = live.platform
  const pid = await live.project('Heating')
  await catalog.setpoints.setSettings(pid, { enabled: true }) // the operator's `lintel project setpoints --enable`
  const { load_balancing_group: group, project_handle: handle } = await catalog.projects.settings(pid)
  const topic = `CONTROLS/${group}/${handle}`
  const edgeAccount = await live.account(pid, 'edge-1', 'write', undefined, true)
  const edge = await simulatedEdge(live.connect, edgeAccount, topic)
  // The device declares its points (writable ones with their tag), an admin sets the write bounds.
  for (const [id, writable] of [[FLOW_SP, true], [VALVE, true], [FLOW, false]] as const) {
    await edge.client.publishAsync(`META/${group}/${handle}`, JSON.stringify({
      entity: { id, type: 'datapoint', source: 'edge' }, mode: ['add'], tags: [{ key: 'writable', value: String(writable) }],
    }), { qos: 1 })
    if (!writable) continue
    const bounds = () => live.http('PUT', `/v2/datapoint?project_id=${pid}&dataPointID=${id}`, { setpoint_min_value: 10, setpoint_max_value: 30 })
    if (!(await until(async () => (await bounds()).status === 200))) throw new Error(`no bounds on ${id}: ${JSON.stringify((await bounds()).body)}`)
  }
  const cip = (await live.http('POST', `/v2/project/${pid}/componentInProject`, { component_id: 5, display_name: 'Heating circuit 1' })).body.resource.id as number
  const mapped = await live.http('POST', `/v2/project/${pid}/componentInProject/pin/datapoint`, {
    componentinproject_id: cip,
    pins: [{ pin_alphanumeric_id: 'flow_temp_setpoint', dataPointID: FLOW_SP }, { pin_alphanumeric_id: 'valve_position', dataPointID: VALVE }, { pin_alphanumeric_id: 'flow_temp', dataPointID: FLOW }],
  })
  if (mapped.status !== 201) throw new Error(JSON.stringify(mapped.body))

  const create = (config: object = WEEK, query = '', who?: Login) =>
    live.http('POST', `/v2/controls/app?project_id=${pid}&componentinproject_id=${cip}&algorithm=schedule&name=Heating${query}`, config, who)
  const get = (id: string, who?: Login) => live.http('GET', `/v2/controls/app/${id}?project_id=${pid}`, undefined, who)
  const run = (id: string, on = true, who?: Login) => live.http('POST', `/v2/controls/app/${id}/run?project_id=${pid}&run=${on}`, undefined, who)
  const logs = (id: string, query = '', who?: Login) => live.http('GET', `/v2/controls/app/${id}/logs?project_id=${pid}${query}`, undefined, who)
  /** The app once `pred` holds for it (polled within `ms`). */
  const settled = async (id: string, pred: (a: any) => boolean, what: string, ms = 10_000) => {
    let last: any
    if (!(await until(async () => pred(last = (await get(id)).body), ms))) throw new Error(`app ${id} not ${what} within ${ms} ms: ${JSON.stringify(last)}`)
    return last
  }
  return { ...live, pid, group, handle, topic, cip, edgeAccount, edge, create, get, run, logs, settled }
}

export type ControlsSite = Awaited<ReturnType<typeof controlsSite>>
