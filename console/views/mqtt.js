// MQTT accounts of the project: list, create (password, rights, validity up to 7200 s),
// extend, delete (which ends its connections).
import { api } from '../lib/api.js'
import { field, h, mount, notify, table, when } from '../lib/dom.js'

/** @param {HTMLElement} el @param {{ project: number, params: URLSearchParams }} ctx */
export async function render(el, ctx) {
  const { project } = ctx
  const accounts = await api('GET', `/v2/project/${project}/mqttusers`)
  const items = Array.isArray(accounts) ? accounts : accounts.items ?? []
  const act = async (fn, done) => { try { await fn(); notify(done); render(el, ctx) } catch (err) { notify(/** @type {Error} */ (err).message, 'error') } }
  mount(el, h('h1', {}, 'MQTT accounts'),
    table([
      ['Username', (a) => a.username], ['Rights', (a) => a.rights ?? a.topics?.map((/** @type {any} */ x) => `${x.rights} ${x.topic}`).join(', ')],
      ['Valid until', (a) => when(a.valid_until)], ['Description', (a) => a.description ?? ''],
      ['', (a) => [
        h('button', { onclick: () => act(() => api('PUT', `/v2/project/${project}/mqttuser/${a.id}`, { body: { validity: 7200 } }), `${a.username} extended by 2 hours.`) }, 'Extend 2 h'), ' ',
        h('button', { onclick: () => confirm(`Delete ${a.username} and end its connections?`) && act(() => api('DELETE', `/v2/project/${project}/mqttuser/${a.id}`), `${a.username} deleted.`) }, 'Delete')]],
    ], items, 'No MQTT account.'),
    h('h2', {}, 'New account'),
    h('form.card', {
      onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault()
        const f = /** @type {HTMLFormElement} */ (e.target)
        act(() => api('POST', `/v2/project/${project}/mqttuser`, { body: {
          username: field(f, 'username'), password: field(f, 'password'), rights: field(f, 'rights'),
          validity: Number(field(f, 'validity')), description: field(f, 'description') || undefined,
        } }), `${field(f, 'username')} created.`)
      },
    },
    h('label', {}, 'Username', h('input', { name: 'username', required: true })),
    h('label', {}, 'Password', h('input', { name: 'password', type: 'password', required: true, autocomplete: 'new-password' })),
    h('label', {}, 'Rights', h('select', { name: 'rights' }, h('option', { value: 'read' }, 'read'), h('option', { value: 'write' }, 'write (and read)'))),
    h('label', {}, 'Validity, seconds (at most 7200)', h('input', { name: 'validity', type: 'number', min: 1, max: 7200, value: 7200 })),
    h('label', {}, 'Description', h('input', { name: 'description' })),
    h('button.primary', { type: 'submit' }, 'Create')))
}
