// Documents of the project's file space: quota, files (search, pages), upload into a folder,
// download through an expiring link served by the storage, delete.
import { api } from '../lib/api.js'
import { field, h, mount, notify, table, when } from '../lib/dom.js'
import { go } from '../lib/router.js'

const mb = (n) => `${(n / 1e6).toFixed(2)} MB`

/** @param {HTMLElement} el @param {{ project: number, params: URLSearchParams }} ctx */
export async function render(el, ctx) {
  const { project, params } = ctx
  const base = `/v2/project/${project}`
  const search = params.get('search') ?? ''
  const page = Number(params.get('page') ?? 1)
  const [quota, files] = await Promise.all([api('GET', `${base}/quota`), api('GET', `${base}/files`, { query: { search: search || undefined, page, per_page: 50 } })])
  const q = quota.files
  const act = async (fn, done) => { try { await fn(); notify(done); render(el, ctx) } catch (err) { notify(/** @type {Error} */ (err).message, 'error') } }
  mount(el, h('h1', {}, 'Documents'),
    q ? h('p.hint', {}, `${q.quota_used.files} files, ${mb(q.quota_used.space_bytes)} of ${mb(q.quota_limits.space_bytes)} used; files up to ${mb(q.quota_limits.file_size_bytes)}`) : null,
    h('form.toolbar', { onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); go('documents', { search: field(/** @type {HTMLFormElement} */ (e.target), 'search') }) } },
      h('input.search', { name: 'search', type: 'search', value: search, placeholder: 'Search in paths', 'aria-label': 'Search documents' })),
    table([
      ['Path', (f) => h('button.link', { onclick: async () => { try { const r = await api('GET', `${base}/file`, { query: { path: f.path } }); location.href = r.download_link } catch (err) { notify(/** @type {Error} */ (err).message, 'error') } } }, f.path)],
      ['Size', (f) => mb(f.size_bytes)], ['Modified', (f) => when(f.last_modified)],
      ['', (f) => h('button', { onclick: () => confirm(`Delete ${f.path}?`) && act(() => api('DELETE', `${base}/file`, { query: { path: f.path } }), `${f.path} deleted.`) }, 'Delete')],
    ], files.items, 'No document.'),
    files.meta.total_pages > 1 ? h('div.toolbar', {},
      h('button', { disabled: page <= 1, onclick: () => go('documents', { search, page: page - 1 }) }, 'Previous'),
      `Page ${page} of ${files.meta.total_pages}`,
      h('button', { disabled: page >= files.meta.total_pages, onclick: () => go('documents', { search, page: page + 1 }) }, 'Next')) : null,
    h('h2', {}, 'Upload'),
    h('form.card', {
      onsubmit: (/** @type {Event} */ e) => {
        e.preventDefault()
        const f = /** @type {HTMLFormElement} */ (e.target)
        const file = /** @type {HTMLInputElement} */ (f.elements.namedItem('file')).files?.[0]
        if (!file) return
        const form = new FormData()
        form.append('file', file)
        act(() => api('POST', `${base}/file`, { query: { folder: field(f, 'folder') || undefined }, form }), `${file.name} uploaded.`)
      },
    },
    h('label', {}, 'Folder (created if missing)', h('input', { name: 'folder', placeholder: 'plans/2024' })),
    h('label', {}, 'File', h('input', { name: 'file', type: 'file', required: true })),
    h('button.primary', { type: 'submit' }, 'Upload')))
}
