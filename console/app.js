// The console's shell: a hash router (#/p/<project>/<page>), the header with the project's
// pages, and the login. Each page is a module in views/ loaded when first opened (the first
// load carries only the shell); a page's render() may return a function that ends what it
// started (a WebSocket, a timer) when the user leaves it.
import { login, logout, session, whenUnauthorized } from './lib/api.js'
import { clearNotice, h, mount, notify } from './lib/dom.js'
import { PAGES, route } from './lib/router.js'

const view = /** @type {HTMLElement} */ (document.getElementById('view'))
/** @type {(() => void) | void} */
let leave

async function show() {
  if (typeof leave === 'function') leave()
  leave = undefined
  clearNotice()
  const r = route()
  if (!session() && r.page !== 'login') { location.hash = '/login'; return }
  header(r)
  if (r.page === 'login') return mount(view, loginForm())
  const name = r.page === 'projects' ? 'projects' : PAGES.some(([p]) => p === r.page) ? r.page : 'datapoints'
  try {
    const mod = await import(`./views/${name}.js`)
    if (route().page !== r.page) return // the user moved on while it loaded
    mount(view)
    leave = await mod.render(view, { project: r.project, params: r.params })
  } catch (err) {
    mount(view, h('p.error', {}, `Could not open this page: ${err instanceof Error ? err.message : String(err)}`))
  }
}

function header(r) {
  const nav = /** @type {HTMLElement} */ (document.getElementById('project-nav'))
  const who = /** @type {HTMLElement} */ (document.getElementById('who'))
  const s = session()
  mount(who, s ? [s.email, ' ', h('button.link', { onclick: async () => { await logout(); location.hash = '/login' } }, 'Log out')] : '')
  mount(nav, r.project && s ? [h('a', { href: '#/' }, 'Projects'), ' › ',
    PAGES.map(([p, label]) => h(`a${r.page === p ? '.active' : ''}`, { href: `#/p/${r.project}/${p}` }, label))] : '')
}

function loginForm() {
  const form = h('form.login', {
    onsubmit: async (/** @type {Event} */ e) => {
      e.preventDefault()
      const f = /** @type {HTMLFormElement} */ (e.target)
      const email = /** @type {HTMLInputElement} */ (f.elements.namedItem('email')).value
      const password = /** @type {HTMLInputElement} */ (f.elements.namedItem('password')).value
      try {
        await login(email, password)
        location.hash = '/'
      } catch (err) {
        notify(err instanceof Error ? err.message : String(err), 'error')
      }
    },
  },
  h('h1', {}, 'Log in to Lintel'),
  h('label', {}, 'Email', h('input', { name: 'email', type: 'email', autocomplete: 'username', required: true, autofocus: true })),
  h('label', {}, 'Password', h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true })),
  h('button.primary', { type: 'submit' }, 'Log in'))
  return form
}

whenUnauthorized(() => { if (route().page !== 'login') { notify('Your session ended: log in again.', 'error'); location.hash = '/login' } })
addEventListener('hashchange', show)
show()
