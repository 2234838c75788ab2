// Start-up checks that run before anything is created (issue 15 item 5): a listen address
// that does not resolve, or a port another process holds, must stop the start with one line
// and exit code 2 before the first company is made or a store opened. Ports 0 (any free
// port) are not checked. A port taken between this check and the real listen still fails
// the start; main.ts reports that the same way.
import { lookup } from 'node:dns/promises'
import { createServer } from 'node:net'

export class StartupError extends Error {}

export async function checkHost(host: string): Promise<void> {
  try {
    await lookup(host)
  } catch (err) {
    throw new StartupError(`cannot listen on LINTEL_HOST '${host}': the name does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
  }
}

/** Each named port must be free on `host`; `ports` maps a variable name to its port. */
export async function checkPortsFree(host: string, ports: Record<string, number | undefined>): Promise<void> {
  for (const [name, port] of Object.entries(ports)) {
    if (port === undefined || port === 0) continue
    await new Promise<void>((resolve, reject) => {
      const probe = createServer()
      probe.once('error', (err: NodeJS.ErrnoException) => reject(new StartupError(listenProblem(name, host, port, err))))
      probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()))
    })
  }
}

/** The one line for a failed listen: which variable, which address, and why. */
export function listenProblem(name: string, host: string, port: number, err: NodeJS.ErrnoException): string {
  const why = err.code === 'EADDRINUSE' ? 'the port is in use by another process'
    : err.code === 'EACCES' ? 'permission denied (ports below 1024 need privileges)'
    : err.code === 'EADDRNOTAVAIL' ? 'the address is not one of this machine' : `${err.code ?? ''} ${err.message}`.trim()
  return `cannot listen on ${host}:${port} (${name}): ${why}`
}
