// A live platform (HTTP, MQTT over TLS) with one project enabled for setpoint writing, an edge
// agent with the simulated BACnet-style driver logged in with the project's edge account,
// and writable datapoints with write bounds [15,30] (issue 11). Used by the end-to-end and the
// security tests of setpoints.
import type { Test } from 'tap'
import { startEdgeAgent, type EdgeAgent } from '../../edge/agent.ts'
import { SimulatedBacnetDriver } from '../../edge/simulated-driver.ts'
import { livePlatform, until } from './live-platform.ts'
import type { Login } from './platform.ts'

export const POINTS = ['ahu-1.sp', 'ahu-2.sp']

export async function setpointSite(t: Test, env: Record<string, string> = {}) {
  // 15 s: an edge answer can take seconds on a loaded machine (1.5 s failed writes there);
  // the tests of the time-out set their own.
  const live = await livePlatform(t, { LINTEL_SETPOINT_TIMEOUT_MS: '15000', ...env })
  const { catalog } = live.platform
  const pid = await live.project('Site')
  await catalog.setpoints.setSettings(pid, { enabled: true }) // the operator's `lintel project setpoints --enable`
  const { load_balancing_group: group, project_handle: handle } = await catalog.projects.settings(pid)
  const edgeAccount = await live.account(pid, 'edge-1', 'write', undefined, true) // designated: only edge accounts answer setpoints
  const driver = new SimulatedBacnetDriver(POINTS.map((id) => ({ id, relinquishDefault: 20 })))
  const edge = async (): Promise<EdgeAgent> => {
    const agent = await startEdgeAgent({ url: `mqtts://127.0.0.1:${live.platform.broker.ports.tls}`, ca: live.ca, ...edgeAccount, group, handle, driver, reconnectPeriod: 0 })
    t.teardown(() => agent.stop())
    return agent
  }
  const agent = await edge()
  // `writable` comes from metadata: the edge device declares its points writable (META V2).
  for (const id of POINTS) {
    await agent.client.publishAsync(`META/${group}/${handle}`, JSON.stringify({ entity: { id, type: 'datapoint', source: 'edge' }, mode: ['add'], tags: [{ key: 'writable', value: 'true' }] }), { qos: 1 })
    const b = await live.http('PUT', `/v2/datapoint?project_id=${pid}&dataPointID=${encodeURIComponent(id)}`, { setpoint_min_value: 15, setpoint_max_value: 30 })
    if (b.status !== 200) throw new Error(JSON.stringify(b.body))
  }
  const write = (query: string, who?: Login) => live.http('POST', `/v2/datapoint/setpoint?project_id=${pid}&${query}`, undefined, who)
  const op = (reference: string, who?: Login) => live.http('GET', `/v2/datapoint/setpoint/${reference}`, undefined, who)
  /** The operation once it left `requested` (written or failed). */
  const settled = async (reference: string, ms = 15_000) => {
    let last: any
    await until(async () => { last = (await op(reference)).body; return last.status !== 'requested' }, ms)
    return { ...last, log: JSON.parse(last.log) }
  }
  return { ...live, pid, group, handle, driver, agent, edge, edgeAccount, write, op, settled }
}
