// Favorites and saved plot views of the caller (issue 33 item 2; endpoints 191-198 of lane
// 33-live): open a favorite's chart, open a plot view as a chart with its range and sampling.
import { api, ApiError } from '../lib/api.js'
import { h, mount, table } from '../lib/dom.js'
import { href } from '../lib/router.js'
import { plotViewParams } from '../lib/favorites.js'

/** @param {HTMLElement} el @param {{ project: number }} ctx */
export async function render(el, { project }) {
  // A section whose endpoint the caller's roles do not grant (403) says so in words (the
  // datapoint browser leaves its stars out the same way); the API's text is not shown.
  const notGranted = (/** @type {unknown} */ err) => { if (err instanceof ApiError && err.status === 403) return null; throw err }
  let favs, views
  try {
    ;[favs, views] = await Promise.all([
      api('GET', `/v2/project/${project}/favorites`).catch(notGranted), api('GET', `/v2/project/${project}/plotviews`).catch(notGranted)])
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) { mount(el, h('h1', {}, 'Favorites'), h('p.empty', {}, 'This server has no favorites or plot views yet.')); return }
    throw err
  }
  const denied = (/** @type {string} */ what) => h('p.empty', { 'data-reason': 'not-granted' }, `Your roles in this project do not include ${what}: an administrator of the project can grant them.`)
  if (!favs && !views) { mount(el, h('h1', {}, 'Favorites'), denied('favorites and plot views')); return }
  const favItems = favs?.favorites ?? []
  const viewItems = views?.plotviews ?? []
  mount(el, h('h1', {}, 'Favorites'),
    favs ? table([['Datapoint', (f) => h('a', { href: href('chart', { dp: f.dataPointID }) }, f.dataPointID)]], favItems, 'No favorite yet: star datapoints in the datapoint browser.') : denied('favorites'),
    favItems.length > 1 ? h('p', {}, h('a', { href: href('chart', { dp: favItems.map((/** @type {any} */ f) => f.dataPointID) }) }, 'Chart all favorites')) : null,
    h('h2', {}, 'Plot views'),
    views ? table([
      ['View', (v) => h('a', { href: href('chart', plotViewParams(v)) }, v.name)],
      ['Datapoints', (v) => v.datapoints.map((/** @type {any} */ d) => d.dataPointID ?? '(no longer readable)').join(', ')],
      ['Range', (v) => v.relative ? `last ${v.relative}` : `${v.start} – ${v.end}`],
      ['', (v) => h('button', { onclick: async () => { await api('DELETE', `/v2/project/${project}/plotview/${v.id}`); render(el, { project }) } }, 'Delete')],
    ], viewItems, 'No plot view yet: save one from a chart.') : denied('plot views'))
}
