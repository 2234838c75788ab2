// The caller's projects (GET /v2/user/projects): every project with a company role, else
// those a project role names.
import { api } from '../lib/api.js'
import { h, mount, table } from '../lib/dom.js'
import { href } from '../lib/router.js'

/** @param {HTMLElement} el */
export async function render(el) {
  const projects = await api('GET', '/v2/user/projects')
  mount(el, h('h1', {}, 'Projects'),
    table([
      ['Project', (p) => h('a', { href: href('datapoints', {}, p.id) }, p.name)],
      ['Description', (p) => p.description],
      ['', (p) => h('a', { href: href('chart', {}, p.id) }, 'Chart')],
    ], projects, 'No project yet: a company admin creates one (POST /v2/company/project).'))
  if (projects.length === 1) el.append(h('p.hint', {}, 'Open the project to browse its datapoints.'))
}
