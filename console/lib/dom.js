// A few DOM helpers instead of a framework: build elements, replace a container's content,
// show a message. Text is always set as text (never as HTML), so names of datapoints,
// formulas and errors from the API cannot inject markup.

/**
 * h('button.primary', { onclick }, 'Save'): an element with classes, properties or
 * attributes (`data-*`, `aria-*`, `for`), and children (strings become text nodes).
 * @param {string} tag
 * @param {Record<string, any>} [props]
 * @param {...(Node|string|number|null|undefined|false|Array<Node|string>)} children
 * @returns {HTMLElement}
 */
export function h(tag, props = {}, ...children) {
  const [name, ...classes] = tag.split('.')
  const el = document.createElement(name || 'div')
  if (classes.length) el.className = classes.join(' ')
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v === undefined || v === null || v === false) continue
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v)
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v)
    else if (k.includes('-') || k === 'for' || k === 'role' || k === 'list') el.setAttribute(k, String(v))
    else /** @type {any} */ (el)[k] = v
  }
  append(el, children)
  return el
}

/** @param {Node} el @param {any[]} children */
function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue
    el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)))
  }
}

/** Replace what `el` holds. @param {Element} el @param {...any} children */
export function mount(el, ...children) {
  el.replaceChildren()
  append(el, children)
  return el
}

let shownAt = 0

/** A short message at the top of the page; errors stay until the next one or the next page. */
export function notify(text, kind = 'info') {
  const bar = document.getElementById('notice')
  if (!bar) return
  shownAt = Date.now()
  mount(bar, text)
  bar.className = `notice ${kind}`
  bar.hidden = false
  if (kind !== 'error') setTimeout(() => { if (bar.textContent === text) bar.hidden = true }, 4000)
}

/** Hide the message when the user moves to another page, unless it was just shown (it explains the move). */
export function clearNotice() {
  const bar = document.getElementById('notice')
  if (bar && Date.now() - shownAt > 1000) bar.hidden = true
}

/** A table of rows: columns [header, (row) => cell]. */
export function table(columns, rows, empty = 'Nothing here yet.') {
  if (rows.length === 0) return h('p.empty', {}, empty)
  return h('table', {},
    h('thead', {}, h('tr', {}, columns.map(([name]) => h('th', {}, name)))),
    h('tbody', {}, rows.map((r) => h('tr', {}, columns.map(([, cell]) => h('td', {}, cell(r)))))))
}

/** The value of a form's field by name. @param {HTMLFormElement} form @param {string} name */
export function field(form, name) {
  const el = /** @type {HTMLInputElement|null} */ (form.elements.namedItem(name))
  return el ? el.value : ''
}

/** Time in the browser's zone, to the second. @param {string|number|Date} t */
export function when(t) {
  const d = new Date(t)
  return Number.isNaN(d.getTime()) ? String(t) : d.toLocaleString(undefined, { hour12: false })
}
