// Configuration of the Prometheus listener (issue 34 item 4; server/prometheus.ts), read by
// server/config.ts. Off unless LINTEL_METRICS_PORT is set; it is a listener of its own, never
// the API's, so a firewall rule or a bind address keeps it to the operator's network.
//   LINTEL_METRICS_PORT   port of GET /metrics (0: any free port); unset: no listener
//   LINTEL_METRICS_HOST   where it binds (default 127.0.0.1: this machine only, whatever LINTEL_HOST is)
//   LINTEL_METRICS_TOKEN  optional, 16 to 200 characters: scrapes must send
//                         `Authorization: Bearer <token>` (401 otherwise)
type Source = Record<string, string | undefined>
type Int = (name: string, fallback: number, min: number, max: number) => number

export interface MetricsListener { host: string; port: number; token?: string }

export function readMetricsListener(source: Source, int: Int, problems: string[]): MetricsListener | undefined {
  if (source.LINTEL_METRICS_PORT === undefined) {
    const stray = ['LINTEL_METRICS_HOST', 'LINTEL_METRICS_TOKEN'].filter((k) => source[k] !== undefined)
    if (stray.length > 0) problems.push(`${stray.join(', ')} ${stray.length === 1 ? 'is' : 'are'} set but LINTEL_METRICS_PORT is not: the metrics listener is off unless it has a port`)
    return undefined
  }
  const port = int('LINTEL_METRICS_PORT', 0, 0, 65535)
  const host = source.LINTEL_METRICS_HOST ?? '127.0.0.1'
  if (!/^[A-Za-z0-9.:-]{1,253}$/.test(host)) problems.push(`LINTEL_METRICS_HOST must be a host name or address, got '${host}'`)
  const token = source.LINTEL_METRICS_TOKEN
  if (token !== undefined && (token.length < 16 || token.length > 200 || /\s/.test(token))) problems.push('LINTEL_METRICS_TOKEN must be 16 to 200 characters without spaces')
  return { host, port, token }
}
