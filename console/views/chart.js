// A chart of one or several datapoints (uPlot). Drag across it to zoom: the zoomed range is
// read again from the server with automatic sampling, so detail appears as the range narrows
// (double-click or "Back" returns). While not zoomed it follows the newest data: live
// observations arrive over the WebSocket and the window slides.
import { api } from '../lib/api.js'
import { h, mount, notify } from '../lib/dom.js'
import { subscribe } from '../lib/live.js'
import { align, insertPoints, newestTime, readSeries, trimBefore } from '../lib/series.js'
import { go, href } from '../lib/router.js'
import { saveViewButton } from '../lib/favorites.js'

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf']
const RATES = [['', 'automatic'], ['1m', '1 min'], ['15m', '15 min'], ['1h', '1 hour'], ['1D', 'day (project zone)'], ['1W', 'week'], ['1M', 'month']]
const AGGREGATES = ['mean', 'min', 'max', 'sum', 'first', 'last', 'count']
const SPANS = [['1h', 3600e3], ['24h', 86400e3], ['7d', 7 * 86400e3], ['30d', 30 * 86400e3], ['1y', 365 * 86400e3]]

/** A span such as `24h` or `7d` in ms; undefined when it is not one. */
export function spanMs(text) {
  const m = /^(\d+)([mhdw])$/.exec(text ?? '')
  return m ? Number(m[1]) * { m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 }[/** @type {'m'|'h'|'d'|'w'} */ (m[2])] : undefined
}

/** A span in the largest whole unit: 86400000 → `1d` (a plot view's relative range). @param {number} ms */
export function spanText(ms) {
  const minutes = Math.max(1, Math.round(ms / 60e3))
  for (const [unit, n] of /** @type {[string, number][]} */ ([['w', 10080], ['d', 1440], ['h', 60]])) if (minutes % n === 0) return `${minutes / n}${unit}`
  return `${minutes}m`
}

/** @param {HTMLElement} el @param {{ project: number, params: URLSearchParams }} ctx */
export async function render(el, { project, params }) {
  const asked = [...new Set(params.getAll('dp'))]
  // Each datapoint's newest time; one the caller may not read answers 404 like an unknown one,
  // and is left out of the chart (no series, no label, no live subscription).
  const probes = await Promise.all(asked.map((id) => newestTime(project, id).then((t) => ({ id, t, ok: true }), (/** @type {Error} */ err) => ({ id, t: undefined, ok: false, err }))))
  const refused = probes.filter((p) => !p.ok).map((p) => ('err' in p ? p.err.message : undefined) ?? `${p.id}: not readable`)
  if (refused.length) notify(refused.join(' · '), 'error')
  const ids = probes.filter((p) => p.ok).map((p) => p.id)
  if (ids.length === 0) {
    mount(el, h('h1', {}, 'Chart'), h('p.empty', {}, 'Pick datapoints in the ', h('a', { href: href('datapoints') }, 'datapoint browser'), ' (or a favorite) to chart them.'))
    return
  }
  const samplerate = params.get('samplerate') ?? ''
  const aggregate = params.get('aggregate') ?? ''
  const units = params.get('units') ?? ''
  let span = spanMs(params.get('span') ?? '') ?? 86400e3
  // Where the window ends: the given end, else the newest observation (or now, when newer).
  const given = { start: params.get('start'), end: params.get('end') }
  let end = given.end ? Date.parse(given.end) : Math.max(...probes.map((p) => p.t ?? 0), 0)
  if (!given.end && (end === 0 || Date.now() - end < span)) end = Date.now()
  let start = given.start ? Date.parse(given.start) : end - span
  if (given.start && given.end) span = end - start
  /** @type {import('../lib/series.js').Pt[][]} */
  let series = ids.map(() => [])
  /** Zoomed ranges, outermost first; empty: following the newest data. */
  /** @type {[number, number][]} */
  const zooms = []
  const following = () => zooms.length === 0 && !given.end

  const status = h('span.live-state', { 'data-state': 'connecting' }, 'connecting…')
  const rangeText = h('span.range')
  const box = h('div.chart', { 'data-testid': 'chart' })
  const back = /** @type {HTMLButtonElement} */ (h('button', { onclick: () => unzoom(), disabled: true }, 'Back'))
  // Sampling and aggregate are part of the chart's address: changing them opens it anew.
  const reopen = (/** @type {Record<string, string>} */ change) => {
    const next = Object.fromEntries([...new Set(params.keys())].map((k) => [k, params.getAll(k)]))
    go('chart', { ...next, dp: ids, ...change })
  }
  const rate = h('select', { 'aria-label': 'Sampling', onchange: (/** @type {Event} */ e) => reopen({ samplerate: /** @type {HTMLSelectElement} */ (e.target).value }) },
    RATES.map(([v, label]) => h('option', { value: v, selected: v === samplerate }, label)))
  const agg = h('select', { 'aria-label': 'Aggregate', disabled: !samplerate, onchange: (/** @type {Event} */ e) => reopen({ aggregate: /** @type {HTMLSelectElement} */ (e.target).value }) },
    AGGREGATES.map((a) => h('option', { value: a, selected: a === (aggregate || 'mean') }, a)))
  const spanButtons = SPANS.map(([label, ms]) => h('button', { onclick: () => { span = /** @type {number} */ (ms); zooms.length = 0; end = Math.max(end, Date.now()); start = end - span; load() } }, /** @type {string} */ (label)))
  mount(el,
    h('h1', {}, ids.join(', ')),
    h('div.toolbar', {}, spanButtons, back, rate, agg, rangeText, status, saveViewButton(project, () => ({ datapoints: ids, ...(following() ? { span: spanText(span) } : { start: new Date(start).toISOString(), end: new Date(end).toISOString() }), samplerate, aggregate, units }))),
    box,
    h('p.hint', {}, 'Drag across the chart to zoom (read again at finer sampling); double-click to go back.'))

  const plot = new uPlot({
    width: Math.max(300, box.clientWidth || el.clientWidth || 800),
    height: 360,
    series: [{ label: 'time' }, ...ids.map((id, i) => ({ label: id, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: true, points: { size: 4 } }))],
    axes: [{}, { size: 60 }],
    scales: { x: { time: true } },
    cursor: { drag: { x: true, y: false, setScale: false } },
    hooks: {
      setSelect: [(u) => {
        if (u.select.width < 5) return
        const a = u.posToVal(u.select.left, 'x') * 1000
        const b = u.posToVal(u.select.left + u.select.width, 'x') * 1000
        u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false)
        zooms.push([start, end])
        start = a
        end = b
        load()
      }],
    },
  }, align(series), box)
  box.addEventListener('dblclick', () => unzoom())

  async function load() {
    box.dataset.loading = 'true'
    back.disabled = zooms.length === 0
    const read = await Promise.all(ids.map((id) => readSeries(project, id, start, end, samplerate, aggregate, units).catch((err) => { notify(`${id}: ${err.message}`, 'error'); return [] })))
    series = read
    draw()
    box.dataset.loading = 'false'
  }
  function draw() {
    plot.setData(align(series), false)
    plot.setScale('x', { min: start / 1000, max: end / 1000 })
    rangeText.textContent = `${new Date(start).toLocaleString()} – ${new Date(end).toLocaleString()}`
    // What is drawn, for people reading the page's source and for the browser tests.
    box.dataset.range = `${new Date(start).toISOString()}/${new Date(end).toISOString()}`
    box.dataset.points = String(series.reduce((n, s) => n + s.length, 0))
    box.dataset.last = series.map((s) => s.length ? String(s[s.length - 1][1]) : '').join(',')
  }
  function unzoom() {
    const prev = zooms.pop()
    if (!prev) return
    ;[start, end] = prev
    if (zooms.length === 0 && !given.end) { end = Math.max(end, Date.now()); start = end - span }
    load()
  }

  await load()
  const live = subscribe(project, ids, {
    since: new Date(end).toISOString(),
    onObservations: (id, data) => {
      const i = ids.indexOf(id)
      if (i < 0) return
      insertPoints(series[i], data.map((d) => /** @type {import('../lib/series.js').Pt} */ ([Date.parse(d.time) / 1000, d.value])))
      if (following()) {
        const newest = Math.max(...data.map((d) => Date.parse(d.time)))
        if (newest > end) { end = newest; start = end - span }
        for (const s of series) trimBefore(s, start / 1000)
      }
      draw()
    },
    // Access taken away (roles or tags changed): what was drawn of it goes too.
    onRevoked: (id) => {
      const i = ids.indexOf(id)
      if (i >= 0) { series[i] = []; draw() }
      notify(`${id}: you may no longer read it.`, 'error')
    },
    onState: (state, detail) => { status.dataset.state = state; status.textContent = state === 'live' ? '● live' : detail ?? state },
  })
  const resize = () => plot.setSize({ width: Math.max(300, box.clientWidth), height: 360 })
  addEventListener('resize', resize)
  return () => { live.close(); removeEventListener('resize', resize); plot.destroy() }
}

