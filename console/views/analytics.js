// Analytics: the latest result of every analysis instance, grouped by mapped component, with
// its signal colour (red, yellow, green), interpretation, KPIs and recommendations.
import { api } from '../lib/api.js'
import { h, mount, table } from '../lib/dom.js'

/** @param {HTMLElement} el @param {{ project: number, params: URLSearchParams }} ctx */
export async function render(el, { project, params }) {
  const lang = params.get('lang') === 'de' ? 'de' : 'en'
  const r = await api('GET', '/v2/analytics/results', { query: { project_id: project, result_language: lang } })
  mount(el, h('h1', {}, 'Analytics results'),
    h('div.toolbar', {}, h('a', { href: `#/p/${project}/analytics?lang=${lang === 'en' ? 'de' : 'en'}` }, lang === 'en' ? 'Deutsch' : 'English')),
    r.items.length === 0 ? h('p.empty', {}, 'No result yet: map a component and create an analysis instance (docs/analytics.md).') : null,
    r.items.map((/** @type {any} */ c) => h('section.card', {},
      h('h2', {}, c.display_name || c.nameEN),
      c.results.map((/** @type {any} */ res) => h('div.result', { 'data-signal': res.signal_color ?? '' },
        h('h3', {}, h(`span.signal.${res.signal_color ?? 'none'}`, { title: res.signal_color ?? 'no signal' }), res.function_name, ' ',
          h(`span.signal-${res.signal_color ?? 'none'}`, {}, res.signal_color ?? ''), ' ', h('small.hint', {}, `${res.start} – ${res.end}, ${res.status}`)),
        res.interpretation ? h('p', {}, res.interpretation) : null,
        res.kpi?.length ? table([['KPI', (k) => k.name], ['Value', (k) => `${k.value ?? ''} ${k.unit ?? ''}`]], res.kpi) : null,
        res.recommendation?.length ? h('ul', {}, res.recommendation.map((/** @type {string} */ x) => h('li', {}, x))) : null)))))
}
