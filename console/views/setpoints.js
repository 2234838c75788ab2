// Setpoints of a datapoint: write a value at a priority (acknowledged or not, dry run, or
// release with an empty value), and the operation log: every request, newest first, and one
// operation's log entries.
import { api } from '../lib/api.js'
import { field, h, mount, notify, table, when } from '../lib/dom.js'
import { go } from '../lib/router.js'

/** @param {HTMLElement} el @param {{ project: number, params: URLSearchParams }} ctx */
export async function render(el, { project, params }) {
  const dp = params.get('dp') ?? ''
  const picker = h('form.toolbar', { onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); go('setpoints', { dp: field(/** @type {HTMLFormElement} */ (e.target), 'dp') }) } },
    h('input.search', { name: 'dp', value: dp, placeholder: 'dataPointID of a writable datapoint', 'aria-label': 'Datapoint' }), h('button', { type: 'submit' }, 'Open'))
  mount(el, h('h1', {}, 'Setpoints'), picker)
  if (!dp) { el.append(h('p.hint', {}, 'Name a writable datapoint (tag writable=true, announced by the edge agent).')); return }
  const ops = await api('GET', '/v2/datapoint/setpoints', { query: { project_id: project, dataPointID: dp } })
  const log = h('div')
  const write = h('form.card', {
    onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault()
      const f = /** @type {HTMLFormElement} */ (e.target)
      const value = field(f, 'value').trim()
      try {
        const r = await api('POST', '/v2/datapoint/setpoint', { query: {
          project_id: project, dataPointID: dp, value: value === '' ? 'null' : value, priority: field(f, 'priority') || undefined,
          acked: /** @type {HTMLInputElement} */ (f.elements.namedItem('acked')).checked, dryrun: /** @type {HTMLInputElement} */ (f.elements.namedItem('dryrun')).checked,
        } })
        notify(`Requested ${r.resource.value ?? 'release'} at priority ${r.resource.priority}${r.resource.reference ? ` (reference ${r.resource.reference})` : ''}.`)
        render(el, { project, params })
      } catch (err) { notify(/** @type {Error} */ (err).message, 'error') }
    },
  },
  h('p', {}, `Writable: ${ops.writable ? 'yes' : 'no'}; bounds ${ops.setpoint_min_value ?? '–'} to ${ops.setpoint_max_value ?? '–'}`),
  h('label', {}, 'Value (empty releases the priority)', h('input', { name: 'value', inputMode: 'decimal' })),
  h('label', {}, 'Priority (1 most urgent … 16; default 13)', h('input', { name: 'priority', type: 'number', min: 1, max: 16, placeholder: '13' })),
  h('label', {}, h('input', { name: 'acked', type: 'checkbox', checked: true }), ' wait for the edge to acknowledge'),
  h('label', {}, h('input', { name: 'dryrun', type: 'checkbox' }), ' dry run (check at the edge, write nothing)'),
  h('button.primary', { type: 'submit' }, 'Write'))
  const show = async (ref) => {
    const op = await api('GET', `/v2/datapoint/setpoint/${encodeURIComponent(ref)}`, { query: { project_id: project } })
    let entries = []
    try { entries = JSON.parse(op.log) } catch { entries = [] }
    mount(log, h('h2', {}, `Operation ${ref}: ${op.status}`), table([
      ['Time', (x) => x.ts ? when(x.ts) : x.time ? when(x.time) : ''], ['Status', (x) => x.status ?? ''], ['Message', (x) => x.msg ?? JSON.stringify(x)],
    ], entries))
  }
  el.append(write, h('h2', {}, 'Operation log'), table([
    ['Requested', (o) => when(o.created_at ?? o.requested_at ?? '')], ['By', (o) => o.requested_by ?? ''], ['Value', (o) => o.value ?? 'release'],
    ['Priority', (o) => o.priority], ['Status', (o) => o.status ?? ''],
    ['', (o) => o.reference ? h('button.link', { onclick: () => show(o.reference) }, 'log') : ''],
  ], ops.operations ?? [], 'No setpoint request yet.'), log)
}
