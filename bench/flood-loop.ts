// The open-loop flood of bench:login-flood: `rate` attempts a second spread over the source
// addresses, started on a 10 ms tick whether or not earlier ones were answered (at most
// MAX_IN_FLIGHT open at once; what the cap holds back is counted, not queued), and the HTTP
// login it uses for the HTTP variant (keep-alive connections bound to each source address).
import { Agent, request } from 'node:http'

const MAX_IN_FLIGHT = 4000

export interface Outcome { ok: boolean; ms: number; why?: string }
export interface FloodResult { started: number; answered: number; answeredInWindow: number; lastAnswerSeconds: number; skipped: number; seconds: number; answers: Record<string, number> }

export async function flood(rate: number, ms: number, sources: string[], guess: (src: string, n: number) => Promise<string>): Promise<FloodResult> {
  const r: FloodResult = { started: 0, answered: 0, answeredInWindow: 0, lastAnswerSeconds: 0, skipped: 0, seconds: 0, answers: {} }
  let inFlight = 0
  const pending = new Set<Promise<void>>()
  const t0 = performance.now()
  let due = 0
  while (performance.now() - t0 < ms) {
    const target = Math.floor(((performance.now() - t0) / 1000) * rate)
    for (; due < target; due++) {
      if (inFlight >= MAX_IN_FLIGHT) { r.skipped++; continue }
      const n = r.started++
      inFlight++
      const p: Promise<void> = guess(sources[n % sources.length], n).then((answer) => {
        r.answered++
        r.lastAnswerSeconds = (performance.now() - t0) / 1000
        r.answers[answer] = (r.answers[answer] ?? 0) + 1
      }).finally(() => { inFlight--; pending.delete(p) })
      pending.add(p)
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  r.seconds = (performance.now() - t0) / 1000
  r.answeredInWindow = r.answered
  await Promise.all(pending) // answers after the end are counted, not in the rate's seconds
  return r
}

/** GET /v2/user with the given Authorization from a source address: status and milliseconds. */
export function httpLogin(base: string, sources: string[]): (src: string, authorization: string) => Promise<{ status: number; ms: number }> {
  const agents = new Map<string, Agent>()
  for (const src of ['127.0.0.1', ...sources]) agents.set(src, new Agent({ keepAlive: true, maxSockets: 256, localAddress: src }))
  const url = new URL('/v2/user', base)
  return (src, authorization) => new Promise((resolve) => {
    const t0 = performance.now()
    const req = request(url, { agent: agents.get(src), headers: { authorization } }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }))
    })
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t0 }))
    req.end()
  })
}
