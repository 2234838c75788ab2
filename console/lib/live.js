// Live observations and alert events over the WebSocket `GET /v2/live` (protocol/
// live-messages.ts is the format). Browsers cannot set headers on a WebSocket, so the token
// travels as the sub-protocol `bearer.<token>` beside `lintel.v1`. After a drop (network,
// 4408 slow reader, 4409 source interrupted) it reconnects with `since` = the last time
// seen per datapoint, so the server fills the gap from the store without a hole or duplicate.
import { session } from './api.js'

const SUBPROTOCOL = 'lintel.v1'
/** Close codes after which reconnecting cannot help. */
const FINAL = new Set([4401, 4400, 1008])

/**
 * @typedef {{ time: string, value: number }} Point
 * @typedef {{
 *   onObservations?: (dataPointID: string, data: Point[], fill: boolean) => void,
 *   onAlert?: (event: any) => void,
 *   onRevoked?: (dataPointID: string) => void,
 *   onState?: (state: 'connecting'|'live'|'closed', detail?: string) => void,
 * }} Handlers
 */

/**
 * Subscribe to datapoints (or 'all') and optionally alert events of one project; returns
 * `close()`. `since` (RFC 3339) asks for what was stored after it before going live.
 * @param {number} project
 * @param {string[]|'all'} datapoints
 * @param {Handlers & { alerts?: boolean, since?: string }} opts
 */
export function subscribe(project, datapoints, opts) {
  /** @type {Map<string, string>} last time seen per datapoint: the resume point */
  const last = new Map()
  let closed = false
  let attempt = 0
  /** @type {WebSocket | undefined} */
  let ws
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let retry

  const open = () => {
    const s = session()
    if (!s || closed) return
    opts.onState?.('connecting')
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:'
    ws = new WebSocket(`${proto}//${location.host}/v2/live`, [SUBPROTOCOL, `bearer.${s.token}`])
    ws.onopen = () => {
      attempt = 0
      const since = last.size > 0 ? Object.fromEntries(last) : opts.since
      ws?.send(JSON.stringify({ type: 'subscribe', project_id: project, datapoints, alerts: opts.alerts === true, ...(since ? { since } : {}), ref: 'console' }))
    }
    ws.onmessage = (ev) => {
      let m
      try { m = JSON.parse(String(ev.data)) } catch { return }
      if (m.type === 'observations') {
        const newest = m.data[m.data.length - 1]
        if (newest && (!last.has(m.dataPointID) || Date.parse(newest.time) > Date.parse(/** @type {string} */ (last.get(m.dataPointID))))) last.set(m.dataPointID, newest.time)
        opts.onObservations?.(m.dataPointID, m.data, m.fill === true)
      } else if (m.type === 'subscribed' || m.type === 'live') opts.onState?.('live')
      else if (m.type === 'alert') opts.onAlert?.(m)
      else if (m.type === 'revoked') opts.onRevoked?.(m.dataPointID)
      else if (m.type === 'error') opts.onState?.('closed', m.error)
    }
    ws.onclose = (ev) => {
      if (closed) return
      if (FINAL.has(ev.code)) { opts.onState?.('closed', ev.code === 4401 ? 'The login ended: log in again.' : `Closed (${ev.code}) ${ev.reason}`); return }
      // Back off 0.5 s, 1 s, 2 s ... up to 15 s; resume from the last time seen.
      opts.onState?.('connecting', `reconnecting (${ev.code})`)
      retry = setTimeout(open, Math.min(15000, 500 * 2 ** attempt++))
    }
  }
  open()
  return {
    close() {
      closed = true
      clearTimeout(retry)
      ws?.close(1000)
    },
  }
}
