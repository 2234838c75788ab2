// Small statistics over already down-sampled values (a few thousand numbers at most).

export interface Fit { slope: number; intercept: number; r2: number; n: number }

/** Least-squares line y = intercept + slope * x; r2 is NaN when y does not vary. */
export function linearFit(xs: readonly number[], ys: readonly number[]): Fit | undefined {
  const n = xs.length
  if (n < 2) return undefined
  let sx = 0; let sy = 0
  for (let i = 0; i < n; i++) { sx += xs[i]; sy += ys[i] }
  const mx = sx / n; const my = sy / n
  let sxx = 0; let sxy = 0; let syy = 0
  for (let i = 0; i < n; i++) {
    const dx = xs[i] - mx; const dy = ys[i] - my
    sxx += dx * dx; sxy += dx * dy; syy += dy * dy
  }
  if (sxx === 0) return undefined
  const slope = sxy / sxx
  return { slope, intercept: my - slope * mx, r2: syy === 0 ? NaN : (sxy * sxy) / (sxx * syy), n }
}

export function mean(xs: readonly number[]): number {
  let s = 0
  for (const x of xs) s += x
  return xs.length ? s / xs.length : NaN
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** Rounds for display in a KPI; null for a value that is not finite. */
export function round(x: number, digits = 2): number | null {
  if (!Number.isFinite(x)) return null
  const f = 10 ** digits
  return Math.round(x * f) / f
}

/** Pairs two sampled series on equal bucket times. */
export function join<A extends { time: number; value: number }>(a: readonly A[], b: readonly A[]): Array<[number, number, number]> {
  const out: Array<[number, number, number]> = []
  let j = 0
  for (const p of a) {
    while (j < b.length && b[j].time < p.time) j++
    if (j < b.length && b[j].time === p.time) out.push([p.time, p.value, b[j].value])
  }
  return out
}

/**
 * Value of a step signal (a state that holds until the next sample) at each time in
 * `times` (ascending): the last sample at or before it, or undefined before the first.
 */
export function holdAt(points: readonly { time: number; value: number }[], times: readonly number[]): Array<number | undefined> {
  const out: Array<number | undefined> = []
  let j = -1
  for (const t of times) {
    while (j + 1 < points.length && points[j + 1].time <= t) j++
    out.push(j >= 0 ? points[j].value : undefined)
  }
  return out
}

export interface Step { time: number; duration: number; values: Array<number | undefined> }

/**
 * Step signals (states, valve positions, written periodically or only on change) on the
 * union of their sample times: each value holds until that signal's next sample; each
 * step lasts until the next time in the union, the last one until `end`.
 */
export function steps(signals: ReadonlyArray<readonly { time: number; value: number }[]>, end: number): Step[] {
  let times: number[]
  if (signals.length === 1) times = signals[0].map((p) => p.time)
  else {
    // Typed-array sort: numeric and far faster than Array#sort with a comparator.
    const all = Float64Array.from(signals.flatMap((s) => s.map((p) => p.time))).sort()
    times = []
    for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) times.push(all[i])
  }
  const held = signals.map((s) => holdAt(s, times))
  const out: Step[] = new Array(times.length)
  for (let i = 0; i < times.length; i++) {
    out[i] = { time: times[i], duration: (i + 1 < times.length ? times[i + 1] : end) - times[i], values: held.map((h) => h[i]) }
  }
  return out
}

/** Largest and smallest value (no spread into Math.max: a year of minutes exceeds the argument limit). */
export function extent(xs: readonly number[]): [number, number] {
  let lo = Infinity; let hi = -Infinity
  for (const x of xs) { if (x < lo) lo = x; if (x > hi) hi = x }
  return [lo, hi]
}
