// External services of the scaled mode, started by scripts/services/*.sh. A test that needs
// one and cannot reach it fails in CI (CI=true: .ci/run starts them) and skips elsewhere.
import { connect } from 'node:net'
import type { Test } from 'tap'

export function reachable(host: string, port: number, ms = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port })
    const done = (ok: boolean) => { s.destroy(); resolve(ok) }
    s.setTimeout(ms, () => done(false))
    s.once('connect', () => done(true))
    s.once('error', () => done(false))
  })
}

/** True when the service answers; otherwise fails (CI) or skips (locally) the test. */
export async function requireService(t: Test, name: string, host: string, port: number, startWith: string): Promise<boolean> {
  if (await reachable(host, port)) return true
  const why = `${name} is not reachable at ${host}:${port}; start it with ${startWith}`
  if (process.env.CI) t.fail(why)
  else t.skip(why, async () => {})
  return false
}
