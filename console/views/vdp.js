// Virtual datapoints: the list with their states, one with its log and run/stop, and the
// creation form, whose formula errors (syntax and unknown names) are shown at their position.
import { api, ApiError } from '../lib/api.js'
import { field, h, mount, notify, table, when } from '../lib/dom.js'
import { formulaErrorPosition, formulaErrorView, offsetOf } from '../lib/formula-error.js'
import { go, href } from '../lib/router.js'

const TYPES = ['formula', 'gradient', 'absolute_humidity', 'counter']
const PIN_NAMES = { formula: ['P1', 'P2', 'P3', 'P4', 'P5'], gradient: ['input'], absolute_humidity: ['relative_humidity', 'temperature', 'pressure'], counter: ['P1', 'P2', 'P3'] }

/** @param {HTMLElement} el @param {{ project: number, params: URLSearchParams }} ctx */
export async function render(el, { project, params }) {
  const dp = params.get('dp')
  if (params.get('new') !== null) return createForm(el, project)
  if (dp) return detail(el, project, dp)
  const search = params.get('search') ?? ''
  const list = await api('GET', `/v2/project/${project}/virtual_datapoints`, { query: { search: search || undefined, per_page: 100, page: params.get('page') ?? 1 } })
  mount(el, h('h1', {}, 'Virtual datapoints'),
    h('div.toolbar', {},
      h('form', { onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); go('vdp', { search: field(/** @type {HTMLFormElement} */ (e.target), 'search') }) } },
        h('input.search', { name: 'search', type: 'search', value: search, placeholder: 'Search virtual datapoints', 'aria-label': 'Search virtual datapoints' })),
      h('a', { href: href('vdp', { new: 1 }) }, h('button.primary', {}, 'New virtual datapoint'))),
    table([
      ['Datapoint', (v) => h('a', { href: href('vdp', { dp: v.dataPointID }) }, v.dataPointID)],
      ['Status', (v) => h('span', { 'data-status': v.status }, v.status)],
      ['', (v) => h('a', { href: href('chart', { dp: v.dataPointID }) }, 'Chart')],
    ], list.items, 'No virtual datapoint yet.'),
    list.meta.total_pages > 1 ? h('p.hint', {}, `Page ${list.meta.current_page} of ${list.meta.total_pages} (${list.meta.total_items})`) : null)
}

async function detail(el, project, dp) {
  const v = await api('GET', `/v2/project/${project}/virtual_datapoint`, { query: { dataPointID: dp } })
  const running = v.status_code >= 200 && v.status_code < 300
  const run = async (on) => {
    try {
      await api('POST', `/v2/project/${project}/virtual_datapoint/run`, { query: { dataPointID: dp, run: on } })
      notify(on ? 'Run requested.' : 'Stop requested.')
      detail(el, project, dp)
    } catch (err) { notify(/** @type {Error} */ (err).message, 'error') }
  }
  mount(el, h('h1', {}, dp),
    h('div.toolbar', {}, h('strong', { 'data-status': v.status }, v.status), ` (${v.status_code}) `,
      h('button', { onclick: () => run(true), disabled: running }, 'Run'),
      h('button', { onclick: () => run(false), disabled: !running }, 'Stop'),
      h('a', { href: href('chart', { dp }) }, 'Chart'),
      h('button', { onclick: () => detail(el, project, dp) }, 'Refresh')),
    v.description ? h('p', {}, v.description) : null,
    h('h2', {}, 'Pins'),
    table([['Pin', ([k]) => k], ['Datapoint', ([, p]) => h('a', { href: href('chart', { dp: p.dataPointID }) }, p.dataPointID)], ['Settings', ([, p]) => JSON.stringify({ ...p, dataPointID: undefined })]], Object.entries(v.pins ?? {})),
    h('h2', {}, 'Parameters'), h('pre.log', {}, JSON.stringify(v.parameters ?? {}, null, 2)),
    h('h2', {}, 'Log'),
    table([['Time', (l) => when(Number(l.ts) / 1e6)], ['Status', (l) => l.status_text ?? ''], ['Message', (l) => l.message]], [...(v.logs ?? [])].reverse()))
}

function createForm(el, project) {
  const type = /** @type {HTMLSelectElement} */ (h('select', { name: 'type', onchange: () => pins() }, TYPES.map((t) => h('option', { value: t }, t))))
  const pinBox = h('div')
  const formula = /** @type {HTMLTextAreaElement} */ (h('textarea', { name: 'formula', rows: 5, spellcheck: false, placeholder: 'd = P2 - P1; if(d > 0, d, 0);' }))
  const extra = h('textarea', { name: 'extra', rows: 2, spellcheck: false, placeholder: '{"factorization": 3600}' })
  const problem = h('div.problem')
  const pins = () => mount(pinBox, (PIN_NAMES[/** @type {keyof PIN_NAMES} */ (type.value)] ?? []).map((p) =>
    h('label', {}, `Pin ${p}`, h('input', { name: `pin:${p}`, placeholder: 'dataPointID of the input', list: 'dp-list' }))))
  pins()
  const form = h('form.card', {
    onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault()
      const f = /** @type {HTMLFormElement} */ (e.target)
      mount(problem)
      /** @type {Record<string, { dataPointID: string }>} */
      const pinMap = {}
      for (const p of PIN_NAMES[/** @type {keyof PIN_NAMES} */ (type.value)] ?? []) { const id = field(f, `pin:${p}`).trim(); if (id) pinMap[p] = { dataPointID: id } }
      let parameters = {}
      try { parameters = field(f, 'extra').trim() ? JSON.parse(field(f, 'extra')) : {} } catch { mount(problem, h('p.error', {}, 'Further parameters must be a JSON object.')); return }
      if (formula.value.trim()) parameters = { ...parameters, formula: formula.value }
      const dataPointID = field(f, 'dataPointID').trim()
      try {
        await api('POST', `/v2/project/${project}/virtual_datapoint`, { query: { dataPointID, type: type.value, description: field(f, 'description') || undefined }, body: { pins: pinMap, parameters } })
        notify(`Created ${dataPointID}.`)
        go('vdp', { dp: dataPointID })
      } catch (err) {
        const message = err instanceof ApiError ? err.message : String(err)
        if (message.startsWith('parameters.formula')) {
          mount(problem, formulaErrorView(formula.value, message))
          const pos = formulaErrorPosition(message)
          if (pos) { const at = offsetOf(formula.value, pos.line, pos.column); formula.focus(); formula.setSelectionRange(at, at + 1) }
        } else mount(problem, h('p.error', { role: 'alert' }, message))
      }
    },
  },
  h('label', {}, 'Output datapoint', h('input', { name: 'dataPointID', required: true, placeholder: 'ahu1/delta_t' })),
  h('label', {}, 'Type', type),
  h('label', {}, 'Description', h('input', { name: 'description' })),
  pinBox,
  h('label', {}, 'Formula (equations ended by ;, the last is the result)', formula),
  h('label', {}, 'Further parameters (JSON, optional)', extra),
  problem,
  h('button.primary', { type: 'submit' }, 'Create'))
  mount(el, h('h1', {}, 'New virtual datapoint'), form, h('datalist', { id: 'dp-list' }))
  // Suggest the project's datapoints in the pin fields.
  api('GET', `/v2/project/${project}`, { query: { per_page: 2000 } }).then((r) => {
    mount(/** @type {HTMLElement} */ (document.getElementById('dp-list')), r.datapoints.map((/** @type {any} */ d) => h('option', { value: d.dataPointID })))
  }).catch(() => {})
}
