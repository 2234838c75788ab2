// Series of the chart as the API gives them (GET /v2/datapoint/timeseries) and as live
// frames add to them: per datapoint a time-ordered list of [seconds, value], merged into
// uPlot's aligned columns. Pure functions, no DOM.
import { api } from './api.js'

/** @typedef {[number, number]} Pt  time in seconds since the epoch (uPlot's x unit), value */

/**
 * Observations of one datapoint in [start, end) (ms). Without a samplerate the server samples
 * automatically (spec 1, rule 6: at most N buckets, default 200), so any range costs the same;
 * with one, `aggregate` picks the bucket value (default mean); `units` converts (docs/time-series.md).
 * @returns {Promise<Pt[]>}
 */
export async function readSeries(project, dataPointID, startMs, endMs, samplerate = '', aggregate = '', units = '') {
  const r = await api('GET', '/v2/datapoint/timeseries', { query: {
    project_id: project, dataPointID, start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString(),
    samplerate: samplerate || undefined, aggregate: samplerate && aggregate ? aggregate : undefined, units: units || undefined,
  } })
  return r.data.map((/** @type {any} */ d) => /** @type {Pt} */ ([Date.parse(d.time) / 1000, valueOf(d)]))
}

/** The number a data entry carries: `value` raw, `mean` sampled, or the named aggregate. */
export function valueOf(d) {
  if (typeof d.value === 'number') return d.value
  if (typeof d.mean === 'number') return d.mean
  for (const v of Object.values(d)) if (typeof v === 'number') return v
  return NaN
}

/** Time (ms) of the newest observation of a datapoint, or undefined when it has none. */
export async function newestTime(project, dataPointID) {
  const r = await api('GET', '/v2/datapoint/timeseries', { query: { project_id: project, dataPointID, max: 1 } })
  return r.data.length ? Date.parse(r.data[r.data.length - 1].time) : undefined
}

/**
 * Insert points into a time-ordered series: appended when newer (the usual live case),
 * else put in place; a repeated time replaces its value (as the store does).
 * @param {Pt[]} series @param {Pt[]} points
 */
export function insertPoints(series, points) {
  for (const p of points) {
    const n = series.length
    if (n === 0 || series[n - 1][0] < p[0]) { series.push(p); continue }
    let lo = 0
    let hi = n
    while (lo < hi) { const mid = (lo + hi) >> 1; if (series[mid][0] < p[0]) lo = mid + 1; else hi = mid }
    if (series[lo] && series[lo][0] === p[0]) series[lo] = p
    else series.splice(lo, 0, p)
  }
  return series
}

/** Drop points before `fromSec` (a following chart keeps only its window). @param {Pt[]} series */
export function trimBefore(series, fromSec) {
  let i = 0
  while (i < series.length && series[i][0] < fromSec) i++
  if (i > 0) series.splice(0, i)
  return series
}

/**
 * uPlot's aligned data: one x column (the union of all times) and one y column per series,
 * null where a series has no point at that time.
 * @param {Pt[][]} all
 * @returns {[number[], ...(number|null)[][]]}
 */
export function align(all) {
  const xs = [...new Set(all.flatMap((s) => s.map((p) => p[0])))].sort((a, b) => a - b)
  const index = new Map(xs.map((x, i) => [x, i]))
  const cols = all.map((s) => {
    /** @type {(number|null)[]} */
    const col = new Array(xs.length).fill(null)
    for (const [x, y] of s) col[/** @type {number} */ (index.get(x))] = y
    return col
  })
  return [xs, ...cols]
}
