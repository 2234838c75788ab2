// Controls apps (docs/controls-apps.md, endpoints 170-181): the list with their states, one
// app with run/stop, delete, its log and its resolved switching times, and the creation of a
// schedule app whose configuration (JSON) the API checks field by field: its 400 is shown as
// one line per problem, the field's JSON path first.
import { api, ApiError } from '../lib/api.js'
import { field, h, mount, notify, table, when } from '../lib/dom.js'
import { go, href } from '../lib/router.js'

/** A starting point for a heating schedule: the API's example (docs/controls-apps.md). */
const TEMPLATE = {
  priority: 13, reset_values: { flow_temp_setpoint: null },
  week: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '06:00', values: { flow_temp_setpoint: 21 } },
    { days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '22:00', values: { flow_temp_setpoint: 16 } }],
  holiday: [{ time: '00:00', values: { flow_temp_setpoint: 16 } }],
}
/** Days of switching times shown on an app's page. */
const SWITCHING_DAYS = 7

/** @param {HTMLElement} el @param {{ project: number, params: URLSearchParams }} ctx */
export async function render(el, { project, params }) {
  const app = params.get('app')
  if (params.get('new') !== null) return createForm(el, project)
  if (app) return detail(el, project, app)
  const list = await api('GET', '/v2/controls/apps', { query: { project_id: project, per_page: 100, page: params.get('page') ?? 1 } })
  mount(el, h('h1', {}, 'Controls apps'),
    h('div.toolbar', {}, h('a', { href: href('apps', { new: 1 }) }, h('button.primary', {}, 'New schedule app'))),
    table([
      ['App', (a) => h('a', { href: href('apps', { app: a.id }) }, a.name || a.id)],
      ['Component', (a) => String(a.component_in_project_id)],
      ['Algorithm', (a) => a.algorithm],
      ['Status', (a) => h('span', { 'data-status': a.status.code }, a.status.message)],
      ['Edge', (a) => a.deployment.pending ? `revision ${a.deployment.revision} pending` : `revision ${a.deployment.confirmed_revision} confirmed`],
    ], list.items, 'No controls app yet.'),
    list.meta.total_pages > 1 ? h('p.hint', {}, `Page ${list.meta.current_page} of ${list.meta.total_pages} (${list.meta.total_items})`) : null)
}

/** Running or on its way there: stop is offered, delete is not (the API refuses it, 409). */
const active = (/** @type {number} */ code) => code === 200 || code === 202 || code === 300

async function detail(el, project, id) {
  const q = { project_id: project }
  const a = await api('GET', `/v2/controls/app/${encodeURIComponent(id)}`, { query: q })
  const act = async (/** @type {() => Promise<any>} */ call, /** @type {string} */ done) => {
    try { await call(); notify(done); detail(el, project, id) } catch (err) { notify(/** @type {Error} */ (err).message, 'error') }
  }
  const run = (/** @type {boolean} */ on) => act(() => api('POST', `/v2/controls/app/${encodeURIComponent(id)}/run`, { query: { ...q, run: on } }), on ? 'Run requested: the edge agent starts it.' : 'Stop requested.')
  const del = async () => {
    try {
      await api('DELETE', `/v2/controls/app/${encodeURIComponent(id)}`, { query: q })
      notify(`Delete of ${a.name || a.id} requested: gone once the edge agent confirms.`)
      go('apps')
    } catch (err) { notify(/** @type {Error} */ (err).message, 'error') }
  }
  const running = active(a.status.code)
  const from = new Date(); from.setUTCHours(0, 0, 0, 0)
  const to = new Date(from.getTime() + SWITCHING_DAYS * 864e5)
  const day = (/** @type {Date} */ d) => d.toISOString().slice(0, 10)
  const [logs, schedules] = await Promise.all([
    api('GET', `/v2/controls/app/${encodeURIComponent(id)}/logs`, { query: { ...q, per_page: 100 } }),
    api('GET', `/v2/project/${project}/componentinproject/${a.component_in_project_id}/schedules`, { query: { start: day(from), end: day(to) } })
      .catch((err) => ({ error: err instanceof ApiError ? err.message : String(err) })),
  ])
  const mine = schedules.apps?.find((/** @type {any} */ s) => s.controls_app_id === a.controls_app_id)
  mount(el, h('h1', {}, a.name || a.id),
    h('div.toolbar', {}, h('strong', { 'data-status': a.status.code }, a.status.message), ` (${a.status.code}) `,
      h('button', { onclick: () => run(true), disabled: a.status.code === 202 || a.status.code === 200 || a.status.code === 500 }, 'Run'),
      h('button', { onclick: () => run(false), disabled: !running && a.status.code !== 201 }, 'Stop'),
      h('button', { onclick: () => { if (confirm(`Delete ${a.name || a.id}?`)) del() }, disabled: running || a.status.code === 500 }, 'Delete'),
      h('button', { onclick: () => detail(el, project, id) }, 'Refresh')),
    a.status.reason ? h('p.error', {}, a.status.reason) : null,
    h('p.hint', {}, `Component ${a.component_in_project_id}; pins: ${Object.entries(a.pins).map(([p, dp]) => `${p} → ${dp}`).join(', ')}; `,
      a.deployment.pending ? `revision ${a.deployment.revision} (${a.deployment.desired}) not yet confirmed by the edge agent` : `the edge agent confirmed revision ${a.deployment.confirmed_revision}`),
    h('h2', {}, `Switching times of the next ${SWITCHING_DAYS} days, from ${day(from)} (${schedules.zone ?? 'project zone'})`),
    schedules.error ? h('p.error', {}, schedules.error)
      : table([
        ['Local time', (s) => s.local.replace('T', ' ')],
        ['Values', (s) => Object.entries(s.values).map(([p, v]) => `${p} = ${v === null ? 'released' : v}`).join(', ')],
        ['Holiday', (s) => s.holiday ?? ''],
      ], mine?.switching ?? [], 'No switching time in these days.'),
    h('h2', {}, 'Configuration'), h('pre.log', {}, JSON.stringify(a.configuration, null, 2)),
    h('h2', {}, 'Log'),
    table([['Time', (l) => when(l.time)], ['Kind', (l) => l.type], ['Status', (l) => l.status_text ?? ''], ['Message', (l) => l.message]], logs.items))
}

/** The lines of a CONTROLS_APP_CONFIG_INVALID message: one per problem (the API joins them with '; '). */
export function configProblems(/** @type {string} */ message) {
  const body = message.replace(/^Invalid configuration: /, '')
  return body.split(/; (?=configuration)/)
}

async function createForm(el, project) {
  const cips = await api('GET', `/v2/project/${project}/componentsInProject`)
  const config = /** @type {HTMLTextAreaElement} */ (h('textarea', { name: 'configuration', rows: 14, spellcheck: false }))
  config.value = JSON.stringify(TEMPLATE, null, 2)
  const problem = h('div.problem')
  const form = h('form.card', {
    onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault()
      const f = /** @type {HTMLFormElement} */ (e.target)
      mount(problem)
      let body
      try { body = JSON.parse(config.value) } catch (err) { mount(problem, h('p.error', { role: 'alert' }, `The configuration is not JSON: ${/** @type {Error} */ (err).message}`)); return }
      try {
        const r = await api('POST', '/v2/controls/app', { body, query: {
          project_id: project, componentinproject_id: field(f, 'componentinproject_id'), algorithm: 'schedule',
          name: field(f, 'name').trim() || undefined, description: field(f, 'description').trim() || undefined,
        } })
        notify(`Created ${r.resource.name || r.resource.id}.`)
        go('apps', { app: r.resource.id })
      } catch (err) {
        const message = err instanceof ApiError ? err.message : String(err)
        const lines = err instanceof ApiError && err.status === 400 ? configProblems(message) : [message]
        mount(problem, h('div.error', { role: 'alert' },
          h('p', {}, err instanceof ApiError && err.status === 400 ? `The API refused the configuration (${lines.length} problem${lines.length > 1 ? 's' : ''}):` : 'The API refused it:'),
          h('ul', {}, lines.map((l) => h('li', {}, l)))))
      }
    },
  },
  h('label', {}, 'Component', h('select', { name: 'componentinproject_id', required: true },
    cips.items.map((/** @type {any} */ c) => h('option', { value: c.id }, `${c.display_name} (${c.id})`)))),
  h('label', {}, 'Name', h('input', { name: 'name', placeholder: 'HC1 week' })),
  h('label', {}, 'Description', h('input', { name: 'description' })),
  h('label', {}, 'Configuration of the schedule (JSON: priority, week, holiday, reset_values, ...; pins are the component\'s pin names)', config),
  problem,
  h('button.primary', { type: 'submit' }, 'Create'))
  mount(el, h('h1', {}, 'New schedule app'), cips.items.length ? form : h('p.empty', {}, 'No mapped component in this project: a schedule app runs on a component whose pins are mapped to writable datapoints.'))
}
