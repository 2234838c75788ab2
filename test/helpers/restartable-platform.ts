// A platform the test stops and starts again on the same data directory and TLS port (an
// outage of the broker as the edge agent sees it: connection refused, then back), issue 32.
import { join } from 'node:path'
import type { Test } from 'tap'
import { loadConfig } from '../../server/config.ts'
import { start } from '../../server/main.ts'
import { freePort } from './free-port.ts'
import { ADMIN } from './live-platform.ts'
import { basic } from './platform.ts'
import { ensureRunTls } from './tls-pair.ts'

/** `dir`: the test's directory (t.testdir() makes a fresh one at every call, so the caller passes its own). */
export async function restartablePlatform(t: Test, dir: string) {
  const env = {
    LINTEL_DATA_DIR: join(dir, 'platform'), LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: String(await freePort()), LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'silent',
    LINTEL_COMPANY_NAME: 'Live', LINTEL_ADMIN_EMAIL: ADMIN.email, LINTEL_ADMIN_PASSWORD: ADMIN.password, LINTEL_SETPOINT_TIMEOUT_MS: '30000', ...await ensureRunTls(),
  }
  let p: Awaited<ReturnType<typeof start>> | undefined = await start(loadConfig(env))
  t.teardown(() => p?.stop())
  const tls = Number(env.LINTEL_MQTT_TLS_PORT)
  const caFile = p.caFile!
  const http = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(p!.address + path, { method, headers: { authorization: basic(ADMIN), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    return { status: res.status, body: await res.json() as any }
  }
  /** A project with setpoints enabled and a designated edge account (password `<username>-password`). */
  const site = async (name: string, username: string) => {
    const pid = (await http('POST', '/v2/company/project', { name })).body.resource.project.id as number
    await p!.catalog.setpoints.setSettings(pid, { enabled: true })
    const { load_balancing_group: group, project_handle: handle } = await p!.catalog.projects.settings(pid)
    const r = await http('POST', `/v2/project/${pid}/mqttuser`, { username, password: `${username}-password`, rights: 'write', edge: true })
    if (r.status !== 201) throw new Error(JSON.stringify(r.body))
    return { pid, project: `${group}/${handle}`, account: username, password: `${username}-password` }
  }
  const values = async (pid: number, id: string): Promise<number[]> =>
    ((await http('GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=${encodeURIComponent(id)}`)).body.data ?? []).map((d: { value: number }) => d.value)
  return {
    tls, caFile, http, site, values,
    stop: async () => { const q = p; p = undefined; await q?.stop() },
    start: async () => { p = await start(loadConfig(env)) },
  }
}
