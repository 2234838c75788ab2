// AND, OR, if() and elif(): conditions hold when they are a number other than 0; null is
// false. Only the chosen branch is evaluated; AND and OR stop at the first decisive operand.
// Constant conditions are decided at compile time.

import { type Code, type Fn, dyn, fold, konst, truthy } from './code.ts'

/** `a AND b AND ...` → 1 or 0 (never null). */
export function and(args: readonly Code[]): Code {
  const rest: Code[] = []
  for (const a of args) {
    if (a.isConst) { if (!truthy(a.value)) return konst(0) } else rest.push(a)
  }
  if (rest.length === 0) return konst(1)
  const fns = rest.map(a => a.fn)
  if (fns.length === 1) { const a = fns[0]; return dyn(v => (truthy(a(v)) ? 1 : 0)) }
  if (fns.length === 2) { const [a, b] = fns; return dyn(v => (truthy(a(v)) && truthy(b(v)) ? 1 : 0)) }
  return dyn(v => {
    for (let i = 0; i < fns.length; i++) if (!truthy(fns[i](v))) return 0
    return 1
  })
}

/** `a OR b OR ...` → 1 or 0 (never null). */
export function or(args: readonly Code[]): Code {
  const rest: Code[] = []
  for (const a of args) {
    if (a.isConst) { if (truthy(a.value)) return konst(1) } else rest.push(a)
  }
  if (rest.length === 0) return konst(0)
  const fns = rest.map(a => a.fn)
  if (fns.length === 1) { const a = fns[0]; return dyn(v => (truthy(a(v)) ? 1 : 0)) }
  if (fns.length === 2) { const [a, b] = fns; return dyn(v => (truthy(a(v)) || truthy(b(v)) ? 1 : 0)) }
  return dyn(v => {
    for (let i = 0; i < fns.length; i++) if (truthy(fns[i](v))) return 1
    return 0
  })
}

/** `if(condition, then, else)`. */
export function ifThenElse(cond: Code, then: Code, otherwise: Code): Code {
  if (cond.isConst) return truthy(cond.value) ? then : otherwise
  const c = cond.fn
  const a = then.fn
  const b = otherwise.fn
  if (then.isConst && otherwise.isConst) {
    const x = then.value
    const y = otherwise.value
    return dyn(v => (truthy(c(v)) ? x : y))
  }
  return dyn(v => (truthy(c(v)) ? a(v) : b(v)))
}

/** `elif(c1, v1, c2, v2, ..., else, default)`: the value of the first condition that holds. */
export function elif(pairs: readonly { cond: Code; then: Code }[], otherwise: Code): Code {
  const live: { cond: Code; then: Code }[] = []
  let dflt = otherwise
  for (const p of pairs) {
    if (p.cond.isConst) {
      if (truthy(p.cond.value)) { dflt = p.then; break } // later pairs are unreachable
      continue // never holds
    }
    live.push(p)
  }
  if (live.length === 0) return dflt
  // Build from the back: elif(c1,v1,c2,v2,else,d) = if(c1, v1, if(c2, v2, d)) while short.
  if (live.length <= 8) {
    let cur = dflt
    for (let i = live.length - 1; i >= 0; i--) cur = ifThenElse(live[i].cond, live[i].then, cur)
    return cur
  }
  const conds: Fn[] = live.map(p => p.cond.fn)
  const thens: Fn[] = live.map(p => p.then.fn)
  const d = dflt.fn
  return fold([...live.flatMap(p => [p.cond, p.then]), dflt], dyn(v => {
    for (let i = 0; i < conds.length; i++) if (truthy(conds[i](v))) return thens[i](v)
    return d(v)
  }))
}
