// CSV import: the file is sent as a multipart upload with a progress bar. The server reads
// the upload as it stores it (on_error=continue streams to the store; abort spools the file
// and checks it first), so the bar shows how far the server has read; after the upload the
// server's own progress follows (the answer asked for as NDJSON, api/import-progress.ts: a
// line per stored batch, out of the lines checked with abort), then the stored and refused lines.
import { session } from '../lib/api.js'
import { h, mount, table } from '../lib/dom.js'

/** @param {HTMLElement} el @param {{ project: number }} ctx */
export async function render(el, { project }) {
  const bar = /** @type {HTMLProgressElement} */ (h('progress', { max: 1, value: 0, hidden: true }))
  const status = h('p.hint')
  const result = h('div')
  const form = h('form.card', {
    onsubmit: (/** @type {Event} */ e) => {
      e.preventDefault()
      const f = /** @type {HTMLFormElement} */ (e.target)
      const input = /** @type {HTMLInputElement} */ (f.elements.namedItem('import_file'))
      const file = input.files?.[0]
      if (!file) return
      const onError = /** @type {HTMLSelectElement} */ (f.elements.namedItem('on_error')).value
      const body = new FormData()
      body.append('import_file', file)
      // XMLHttpRequest, not fetch: only it reports upload progress in every current browser.
      const xhr = new XMLHttpRequest()
      xhr.open('POST', `/v2/project/${project}/importTimeseries?format=csv&on_error=${onError}`)
      xhr.setRequestHeader('authorization', `Bearer ${session()?.token ?? ''}`)
      xhr.setRequestHeader('accept', 'application/x-ndjson')
      bar.hidden = false
      bar.removeAttribute('value') // indeterminate until the first progress event
      mount(result)
      xhr.upload.onprogress = (p) => {
        if (!p.lengthComputable) return
        bar.value = p.loaded / p.total
        status.textContent = `Sent and read by the server: ${(p.loaded / 1e6).toFixed(1)} of ${(p.total / 1e6).toFixed(1)} MB`
      }
      xhr.upload.onload = () => { bar.removeAttribute('value'); status.textContent = onError === 'abort' ? 'Uploaded; the server checks every line, then stores…' : 'Uploaded; the server stores the last lines…' }
      // The server's progress lines as they arrive (a line may be incomplete until the next chunk).
      xhr.onprogress = () => {
        const lines = xhr.responseText.split('\n').slice(0, -1)
        const p = lastProgress(lines)
        if (!p) return
        if (p.lines_total) bar.value = p.total_lines_success / p.lines_total
        status.dataset.stored = String(p.total_lines_success)
        status.textContent = `The server stored ${p.total_lines_success.toLocaleString()}${p.lines_total ? ` of ${p.lines_total.toLocaleString()}` : ''} lines${p.total_lines_error ? `, refused ${p.total_lines_error.toLocaleString()}` : ''}…`
      }
      xhr.onload = () => {
        bar.value = 1
        let r
        try { r = JSON.parse(xhr.responseText.trim().split('\n').at(-1) ?? '') } catch { r = { success: false, error: xhr.responseText } }
        if (!r.success) { status.textContent = ''; mount(result, h('p.error', { role: 'alert' }, r.error)); return }
        const x = r.resource
        status.textContent = `Done: ${x.total_lines_success ?? '?'} lines stored, ${x.total_lines_error ?? 0} refused.`
        if (x.errors?.length) mount(result, table([['Line', (e) => e.line_no], ['Error', (e) => e.error]], x.errors.slice(0, 1000)))
      }
      xhr.onerror = () => { status.textContent = ''; mount(result, h('p.error', {}, 'The upload was interrupted.')) }
      xhr.send(body)
    },
  },
  h('label', {}, 'CSV file (dataPointID, value, time; other dialects are detected)', h('input', { name: 'import_file', type: 'file', accept: '.csv,text/csv', required: true })),
  h('label', {}, 'On a line error', h('select', { name: 'on_error' },
    h('option', { value: 'continue' }, 'continue: store the good lines, list the bad ones'),
    h('option', { value: 'abort' }, 'abort: store nothing unless every line is good'))),
  h('button.primary', { type: 'submit' }, 'Import'))
  mount(el, h('h1', {}, 'CSV import'), form, bar, status, result)
}

/** The last progress line of the NDJSON answer so far. @param {string[]} lines */
function lastProgress(lines) {
  for (let i = lines.length - 1; i >= 0; i--) {
    try { const o = JSON.parse(lines[i]); if (o.type === 'progress') return o } catch { /* not JSON: the usual answer */ }
  }
  return undefined
}
