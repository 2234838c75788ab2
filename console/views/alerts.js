// Alerts: each with its state (raised, level), enable/disable, and its events (raises and
// resets, newest first). New events arrive live over the WebSocket (alerts: true) and the
// list is read again when one does.
import { api } from '../lib/api.js'
import { h, mount, notify, table, when } from '../lib/dom.js'
import { subscribe } from '../lib/live.js'
import { href } from '../lib/router.js'

const levelText = (l) => h(`span.level-${l ?? 'ok'}`, {}, l ?? 'ok')

/** @param {HTMLElement} el @param {{ project: number, params: URLSearchParams }} ctx */
export async function render(el, { project, params }) {
  const id = params.get('alert')
  const list = h('div')
  const events = h('div')
  const draw = async () => {
    const alerts = await api('GET', `/v2/project/${project}/alerts`, { query: { per_page: 100 } })
    mount(list, table([
      ['Alert', (a) => h('a', { href: href('alerts', { alert: a.id }) }, a.name)],
      ['Datapoint', (a) => a.dataPointID ? h('a', { href: href('chart', { dp: a.dataPointID }) }, a.dataPointID) : ''],
      ['Kind', (a) => a.kind],
      ['State', (a) => h('span', { 'data-alert-state': a.state?.raised ? a.state.level : 'ok' }, a.state?.raised ? levelText(a.state.level) : levelText(null))],
      ['Status', (a) => a.status],
      ['', (a) => h('button', { onclick: () => toggle(a) }, a.enabled ? 'Disable' : 'Enable')],
    ], alerts.items, 'No alert in this project (POST /v2/alert/threshold or /v2/alert/throughput).'))
    if (id) {
      const ev = await api('GET', `/v2/project/${project}/alert/${id}/events`, { query: { per_page: 50 } })
      mount(events, h('h2', {}, `Events of alert ${id}`), table([
        ['Time', (e) => when(e.time)], ['Event', (e) => e.kind], ['Level', (e) => levelText(e.level)], ['Value', (e) => e.value ?? ''],
      ], ev.items, 'No event yet.'))
    }
  }
  const toggle = async (a) => {
    try {
      await api('POST', `/v2/alert/${a.id}/${a.enabled ? 'disable' : 'enable'}`, { query: { project_id: project } })
      await draw()
    } catch (err) { notify(/** @type {Error} */ (err).message, 'error') }
  }
  const status = h('span.live-state', {}, 'connecting…')
  mount(el, h('h1', {}, 'Alerts'), h('div.toolbar', {}, status), list, events)
  await draw()
  const live = subscribe(project, [], {
    alerts: true,
    onAlert: (e) => { notify(`${e.dataPointID}: ${e.kind} ${e.level ?? ''} at ${e.value}`, e.kind === 'raise' ? 'error' : 'info'); draw() },
    onState: (state, detail) => { status.dataset.state = state; status.textContent = state === 'live' ? '● live' : detail ?? state },
  })
  return () => live.close()
}
