// A client of the live WebSocket (GET /v2/live) for tests: every frame it received, parsed,
// its close code, and bounded waits (test/helpers/wait.ts) naming what they wait for.
import WebSocket from 'ws'
import type { ServerMessage } from '../../protocol/live-messages.ts'
import { waitFor } from './wait.ts'

export interface LiveClient {
  ws: WebSocket
  messages: ServerMessage[]
  /** Frames that came as binary (opcode 2): the protocol sends text frames only. */
  binaryFrames: number
  closed?: { code: number; reason: string }
  send(m: object): void
  /** The first message (from `from` on) matching, within the bound. */
  next<T extends ServerMessage['type']>(type: T, match?: (m: Extract<ServerMessage, { type: T }>) => boolean, from?: number): Promise<Extract<ServerMessage, { type: T }>>
  /** Observations of one datapoint received so far, in order: [time, value, fill]. */
  points(dataPointID: string): { time: string; value: number; fill: boolean }[]
  closedWithin(ms?: number): Promise<{ code: number; reason: string }>
}

/** Opens a live socket; rejects with the HTTP status when the upgrade is refused. */
export function liveClient(address: string, opts: { authorization?: string; protocols?: string[]; query?: string } = {}): Promise<LiveClient> {
  const url = address.replace(/^http/, 'ws') + '/v2/live' + (opts.query ?? '')
  const ws = new WebSocket(url, opts.protocols ?? [], { headers: opts.authorization ? { authorization: opts.authorization } : {} })
  const c: LiveClient = {
    ws, messages: [], binaryFrames: 0,
    send: (m) => ws.send(JSON.stringify(m)),
    next: async (type, match, from = 0) => waitFor(() => c.messages.slice(from).find((m) => m.type === type && (!match || match(m as never))) as never, { what: `a '${type}' frame`, timeoutMs: 10_000 }),
    points: (id) => c.messages.flatMap((m) => (m.type === 'observations' && m.dataPointID === id ? m.data.map((d) => ({ ...d, fill: m.fill === true })) : [])),
    closedWithin: (ms = 10_000) => waitFor(() => c.closed, { what: 'the socket to close', timeoutMs: ms }),
  }
  ws.on('message', (data, isBinary) => {
    if (isBinary) c.binaryFrames++
    c.messages.push(JSON.parse(data.toString()))
  })
  ws.on('close', (code, reason) => { c.closed = { code, reason: reason.toString() } })
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(c))
    ws.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (d: Buffer) => { body += d })
      res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode} ${body}`), { status: res.statusCode, body })))
    })
    ws.once('error', reject)
  })
}
