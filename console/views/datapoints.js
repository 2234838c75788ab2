// The datapoint browser: the project's datapoints the caller may read (GET
// /v2/project/{id}, pages of 1,000), searched by name and filtered by tag in the browser,
// with a chart of one or several of them and a star for favorites.
import { api } from '../lib/api.js'
import { field, h, mount, notify, table } from '../lib/dom.js'
import { go, href } from '../lib/router.js'
import { favorites } from '../lib/favorites.js'

const PER_PAGE = 1000

/** Every readable datapoint of the project, page after page (a project has up to a few thousand). */
export async function allDatapoints(project) {
  const first = await api('GET', `/v2/project/${project}`, { query: { per_page: PER_PAGE } })
  const out = [...first.datapoints]
  for (let page = 2; page <= first.meta.total_pages && page <= 50; page++) {
    const next = await api('GET', `/v2/project/${project}`, { query: { page, per_page: PER_PAGE } })
    out.push(...next.datapoints)
  }
  return { project: first.project, datapoints: out }
}

/**
 * Whether a datapoint matches the search: words that must all occur in its identifier or a
 * tag, `key=value` for a tag (value `*`: any), case-insensitive.
 * @param {{ dataPointID: string, tags: Record<string, string> }} dp
 * @param {string} query
 */
export function matches(dp, query) {
  const words = query.trim().toLowerCase().split(/\s+/).filter(Boolean)
  return words.every((w) => {
    const eq = w.indexOf('=')
    if (eq > 0) {
      const k = w.slice(0, eq)
      const v = w.slice(eq + 1)
      return Object.entries(dp.tags).some(([tk, tv]) => tk.toLowerCase() === k && (v === '*' || tv.toLowerCase() === v))
    }
    return dp.dataPointID.toLowerCase().includes(w) || Object.entries(dp.tags).some(([k, v]) => `${k}=${v}`.toLowerCase().includes(w))
  })
}

/** @param {HTMLElement} el @param {{ project: number, params: URLSearchParams }} ctx */
export async function render(el, { project, params }) {
  const [{ project: p, datapoints }, favs] = await Promise.all([allDatapoints(project), favorites(project)])
  /** @type {Set<string>} */
  const picked = new Set()
  const search = /** @type {HTMLInputElement} */ (h('input.search', { type: 'search', placeholder: 'Search: words, or tag=value', value: params.get('q') ?? '', 'aria-label': 'Search datapoints' }))
  const list = h('div')
  const chartButton = /** @type {HTMLButtonElement} */ (h('button.primary', { onclick: () => go('chart', { dp: [...picked] }) }, 'Chart selected'))
  const draw = () => {
    const q = search.value
    const shown = datapoints.filter((dp) => matches(dp, q))
    chartButton.disabled = picked.size === 0
    mount(list, h('p.count', {}, `${shown.length} of ${datapoints.length} datapoints`), table([
      ['', (dp) => h('input', { type: 'checkbox', checked: picked.has(dp.dataPointID), 'aria-label': `Select ${dp.dataPointID}`,
        onchange: (/** @type {Event} */ e) => { /** @type {HTMLInputElement} */ (e.target).checked ? picked.add(dp.dataPointID) : picked.delete(dp.dataPointID); chartButton.disabled = picked.size === 0 } })],
      ['Datapoint', (dp) => h('a.dp', { href: href('chart', { dp: dp.dataPointID }) }, dp.dataPointID)],
      ['Tags', (dp) => Object.entries(dp.tags).map(([k, v]) => h('button.tag', { title: 'Filter by this tag', onclick: () => { search.value = `${k}=${v}`; draw() } }, `${k}=${v}`))],
      ['', (dp) => favs.star(dp.dataPointID)],
    ], shown.slice(0, 500), datapoints.length ? 'No datapoint matches the search.' : 'No datapoint you may read yet: send observations (JSON, CSV or MQTT).'),
    shown.length > 500 ? h('p.hint', {}, `The first 500 of ${shown.length} shown: narrow the search.`) : null)
  }
  search.addEventListener('input', draw)
  mount(el, h('h1', {}, p.name, ' · datapoints'), h('div.toolbar', {}, search, chartButton), list, addForm(project))
  draw()
}

/** Store one observation now (POST /v2/project/{id}/timeseries): a first datapoint, or a test value for a live chart. */
function addForm(project) {
  return h('details', {}, h('summary', {}, 'Add an observation'), h('form.card', {
    onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault()
      const f = /** @type {HTMLFormElement} */ (e.target)
      const id = field(f, 'dataPointID').trim()
      try {
        await api('POST', `/v2/project/${project}/timeseries`, { body: { [id]: [{ time: new Date().toISOString(), value: Number(field(f, 'value')) }] } })
        notify(`Stored ${field(f, 'value')} for ${id}.`)
        go('chart', { dp: id })
      } catch (err) { notify(/** @type {Error} */ (err).message, 'error') }
    },
  },
  h('label', {}, 'Datapoint', h('input', { name: 'dataPointID', required: true, placeholder: 'ahu1/supply_temp' })),
  h('label', {}, 'Value', h('input', { name: 'value', type: 'number', step: 'any', required: true })),
  h('button.primary', { type: 'submit' }, 'Store now and chart'),
  h('p.hint', {}, 'Devices send observations over MQTT or HTTP (docs/mqtt.md, docs/time-series.md); a chart shows new ones live.')))
}
