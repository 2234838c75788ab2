// Routes of the console live in the hash (#/p/<project>/<page>?<params>): a page can be
// bookmarked or shared (a chart with its datapoints and range), and the server serves one file.

/** Pages of a project: [path segment, label]. */
export const PAGES = [
  ['datapoints', 'Datapoints'], ['chart', 'Chart'], ['favorites', 'Favorites'], ['vdp', 'Virtual datapoints'],
  ['alerts', 'Alerts'], ['setpoints', 'Setpoints'], ['mqtt', 'MQTT accounts'], ['import', 'CSV import'],
  ['documents', 'Documents'], ['analytics', 'Analytics'], ['apps', 'Controls apps'],
]

/**
 * The route of a hash: { project, page, params }.
 * @param {string} [hash]
 * @returns {{ project?: number, page: string, params: URLSearchParams }}
 */
export function route(hash = location.hash) {
  const [path, query = ''] = hash.replace(/^#/, '').split('?')
  const parts = path.split('/').filter(Boolean)
  const params = new URLSearchParams(query)
  if (parts[0] === 'login') return { page: 'login', params }
  if (parts[0] === 'p' && /^\d+$/.test(parts[1] ?? '')) return { project: Number(parts[1]), page: parts[2] ?? 'datapoints', params }
  return { page: 'projects', params }
}

/** The hash of a page: href('chart', { dp: ['a', 'b'] }, 1). Arrays repeat the parameter. */
export function href(page, params = {}, project = route().project) {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) for (const x of [v].flat()) if (x !== undefined && x !== null && x !== '') q.append(k, String(x))
  const qs = q.toString()
  return `#${project ? `/p/${project}/${page}` : `/${page}`}${qs ? `?${qs}` : ''}`
}

/** Go to a page (see href). */
export function go(page, params = {}, project = route().project) {
  location.hash = href(page, params, project)
}
