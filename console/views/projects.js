// The caller's projects (GET /v2/user/projects): every project with a company role, else
// those a project role names. A company admin creates one here (POST /v2/company/project).
import { api } from '../lib/api.js'
import { field, h, mount, notify, table } from '../lib/dom.js'
import { go, href } from '../lib/router.js'

/** @param {HTMLElement} el */
export async function render(el) {
  const projects = await api('GET', '/v2/user/projects')
  mount(el, h('h1', {}, 'Projects'),
    table([
      ['Project', (p) => h('a', { href: href('datapoints', {}, p.id) }, p.name)],
      ['Description', (p) => p.description],
      ['', (p) => h('a', { href: href('alerts', {}, p.id) }, 'Alerts')],
    ], projects, 'No project yet.'),
    h('h2', {}, 'New project'),
    h('form.card', {
      onsubmit: async (/** @type {Event} */ e) => {
        e.preventDefault()
        const f = /** @type {HTMLFormElement} */ (e.target)
        try {
          const r = await api('POST', '/v2/company/project', { body: { name: field(f, 'name'), description: field(f, 'description') } })
          notify(`Created project ${r.resource.project.name}.`)
          go('datapoints', {}, r.resource.project.id)
        } catch (err) { notify(/** @type {Error} */ (err).message, 'error') }
      },
    },
    h('label', {}, 'Name', h('input', { name: 'name', required: true })),
    h('label', {}, 'Description', h('input', { name: 'description' })),
    h('button.primary', { type: 'submit' }, 'Create project'),
    h('p.hint', {}, 'Needs a company role (the company admin has one).')))
}
