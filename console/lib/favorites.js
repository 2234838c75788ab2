// Favorites and plot views (issue 33 item 2; endpoints of lane 33-live under
// /v2/project/{id}: favorites, favorite, plotviews, plotview). A server without them answers
// 404, a caller whose roles do not grant them 403: then the star is left out rather than shown
// broken, and the datapoint browser works as before.
import { api, ApiError } from './api.js'
import { h, notify } from './dom.js'

/** The caller's favorites of a project, with a star button per datapoint. @param {number} project */
export async function favorites(project) {
  /** @type {Set<string>} */
  let ids
  try {
    const r = await api('GET', `/v2/project/${project}/favorites`)
    ids = new Set(r.favorites.map((/** @type {any} */ f) => f.dataPointID))
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 403)) return { star: (/** @type {string} */ _id) => null }
    throw err
  }
  return {
    /** @param {string} id */
    star(id) {
      const b = h('button.star', { title: 'Favorite', 'aria-pressed': String(ids.has(id)) }, ids.has(id) ? '★' : '☆')
      b.addEventListener('click', async () => {
        const on = !ids.has(id)
        try {
          if (on) await api('POST', `/v2/project/${project}/favorite`, { body: { dataPointID: id } })
          else await api('DELETE', `/v2/project/${project}/favorite`, { query: { dataPointID: id } })
          on ? ids.add(id) : ids.delete(id)
          b.textContent = on ? '★' : '☆'
          b.setAttribute('aria-pressed', String(on))
        } catch (err) { notify(/** @type {Error} */ (err).message, 'error') }
      })
      return b
    },
  }
}

/** The chart's URL parameters of a saved plot view. @param {any} v */
export function plotViewParams(v) {
  // A datapoint the caller may no longer read comes back masked (dataPointID null): left out.
  const dps = v.datapoints.filter((/** @type {any} */ d) => d.dataPointID !== null)
  return {
    dp: dps.map((/** @type {any} */ d) => d.dataPointID),
    start: v.start, end: v.end, span: v.relative, samplerate: v.samplerate === 'auto' ? undefined : v.samplerate, aggregate: v.aggregate,
    units: dps.find((/** @type {any} */ d) => d.units)?.units,
  }
}

/**
 * "Save view": stores the chart as a plot view (name asked for). Hidden when the server has none.
 * @param {number} project @param {() => Record<string, any>} view
 */
export function saveViewButton(project, view) {
  const b = h('button', { hidden: true }, 'Save view')
  api('GET', `/v2/project/${project}/plotviews`).then(() => { b.hidden = false }, () => {})
  b.addEventListener('click', async () => {
    const name = prompt('Name of the plot view')
    if (!name) return
    const v = view()
    try {
      await api('POST', `/v2/project/${project}/plotview`, { body: {
        name, datapoints: v.datapoints.map((/** @type {string} */ id) => ({ dataPointID: id, ...(v.units ? { units: v.units } : {}) })),
        ...(v.start ? { start: v.start, end: v.end } : { relative: v.span }),
        samplerate: v.samplerate || 'auto', ...(v.samplerate && v.aggregate ? { aggregate: v.aggregate } : {}),
      } })
      notify(`Saved plot view ${name}.`)
    } catch (err) { notify(/** @type {Error} */ (err).message, 'error') }
  })
  return b
}
