// A Haystack world for tests and benchmarks: a listening platform with a project in
// Europe/Berlin, datapoints with tags, a mapped component (an equip) and write bounds, and a
// haystack-nclient Client per login (Basic credentials; Accept as given).
import type { Test } from 'tap'
import type { Client } from 'haystack-nclient'
import { nclient } from './nclient.ts'
import { addProject, addUser, basic, platform, type Login, type Platform } from './platform.ts'

export interface HaystackWorld { p: Platform; pid: number; base: string; ids: Map<string, string>; equipId: number }

export const POINTS: Record<string, Record<string, string>> = {
  'ahu1/supply': { unit: '°C', zone: 'north', temp: '', sensor: 'true', dis: 'AHU 1 supply' },
  'ahu1/return': { unit: '°C', zone: 'south', temp: '' },
  'meter/power': { unit: 'kW', zone: 'north', 'Bad Name': 'x', elec: '' },
  'loose/flag': { zone: 'north', note: 'spare' },
}

export async function haystackWorld(t: Test): Promise<HaystackWorld> {
  const p = await platform(t)
  const pid = (await addProject(p, p.admin, 'HQ')).id
  await p.call(p.admin, 'PUT', `/v2/project/${pid}`, { time_zone: 'Europe/Berlin', description: 'Head quarters' })
  const body = Object.fromEntries(Object.keys(POINTS).map((id) => [id, [{ time: '2024-01-01T00:00:00Z', value: 1 }]]))
  const res = await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, body)
  if (res.status !== 200) throw new Error(JSON.stringify(res.body))
  const ids = new Map<string, string>()
  for (const [id, tags] of Object.entries(POINTS)) {
    const dp = await p.catalog.datapoints.get(pid, id)
    for (const [k, v] of Object.entries(tags)) await p.catalog.datapoints.setTag(dp.id, k, v)
    ids.set(id, dp.hash_id)
  }
  const c = await p.catalog.componentsInProject.create(pid, { component_id: 1, display_name: 'AHU 1', tags: { ahu: '', hvac: 'true', floor: '2' } })
  await p.catalog.componentsInProject.setPins(c.id, [
    { pin_id: 1, datapoint: (await p.catalog.datapoints.get(pid, 'ahu1/supply')).id },
    { pin_id: 2, datapoint: (await p.catalog.datapoints.get(pid, 'ahu1/return')).id },
  ])
  await p.catalog.setpoints.setBounds(pid, 'ahu1/supply', { setpoint_min_value: 12, setpoint_max_value: 24 })
  await p.app.listen({ port: 0, host: '127.0.0.1' })
  const addr = p.app.server.address() as { port: number }
  return { p, pid, base: `http://127.0.0.1:${addr.port}`, ids, equipId: c.id }
}

/** A haystack-nclient Client of the world's project for a login; `accept` picks the answer format. */
export function haystackClient(w: HaystackWorld, who: Login, accept?: string, pid = w.pid): Client {
  const headers: Record<string, string> = { authorization: basic(who) }
  if (accept) headers.accept = accept
  return new nclient.Client({
    base: new URL(w.base), project: String(pid), options: { headers },
    fetch: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, init),
    getOpUrl: ({ origin, project, op }: { origin: string; project: string; op: string }) => `${origin}/haystack/${project}/${op}`,
  } as ConstructorParameters<typeof Client>[0])
}

/** A user of the admin's company with a project role: these endpoints, TagAuths on these tags. */
export async function roleUser(w: HaystackWorld, name: string, endpoints: number[], tags: { key: string; value: string }[]): Promise<Login & { id: number }> {
  const u = await addUser(w.p, name)
  const role = (await w.p.call(w.p.admin, 'POST', `/v2/project/${w.pid}/role`, { name, authed_endpoints: endpoints, authed_tags: tags.map((x) => ({ ...x, read: true, write: false })) })).body as { resource: { id: number } }
  await w.p.call(w.p.admin, 'POST', `/v2/project/${w.pid}/role/${role.resource.id}/user/${u.id}`)
  return u
}
