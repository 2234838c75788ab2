// The broker's network listeners: MQTT over TLS 1.2 and MQTT over secure WebSockets (TLS
// 1.2 only, as spec 3 says), plus plain TCP only when a port is configured (development).
// Every connection reaches aedes through a PacketGuard (packet-guard.ts), which bounds the
// size of each MQTT packet, and the number and lifetime of connections not logged in yet
// (pre-auth.ts). A WebSocket message is bounded to the same size as a packet: the pre-login
// limit (64 KiB) until the CONNECT is authenticated, the configured maximum after it
// (issue 29 item 2: it was the after-login limit from the start). A WebSocket closed for an
// oversize frame is dropped at once rather than read and discarded until the peer answers
// the close frame. TLS handshakes and the WebSocket upgrade request get the pre-login time
// limit too.
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createTcpServer, type Server, type Socket } from 'node:net'
import { createServer as createTlsServer } from 'node:tls'
import type { Duplex } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import { WebSocketServer, createWebSocketStream } from 'ws'
import { PacketGuard, PRE_AUTH_LIMIT, type PacketGuardOptions } from './packet-guard.ts'
import { PRE_AUTH_DEFAULTS } from './pre-auth.ts'

export interface ListenerOptions {
  host: string
  tlsPort: number
  wsPort: number
  tcpPort?: number
  cert: Buffer
  key: Buffer
  /** Largest MQTT packet after authentication, bytes (bounds WebSocket messages too). */
  maxPacketBytes: number
  guard?: PacketGuardOptions
}

export interface Listeners {
  ports: { tls: number; ws: number; tcp?: number }
  close(): Promise<void>
}

type Handle = (stream: Duplex, req?: IncomingMessage) => unknown

/**
 * ws fixes maxPayload per server; its receiver reads the limit from `_maxPayload` for each
 * frame header, so one connection's limit is raised there after login (ws 8.x; a test pins it).
 */
function raiseFrameLimit(ws: object, bytes: number): void {
  const receiver = (ws as { _receiver?: { _maxPayload?: number } })._receiver
  if (receiver && typeof receiver._maxPayload === 'number') receiver._maxPayload = bytes
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve((server.address() as { port: number }).port)
    })
  })
}

export async function startListeners(aedesHandle: Handle, o: ListenerOptions): Promise<Listeners> {
  const handle = (stream: Duplex, address: string | undefined, req?: IncomingMessage) => {
    const guard = new PacketGuard(stream, o.guard, address)
    aedesHandle(guard, req)
    return guard
  }
  const preAuthMs = o.guard?.gate?.timeoutMs ?? PRE_AUTH_DEFAULTS.timeoutMs
  // noDelay: small packets (PUBACKs, controls messages) leave at once instead of waiting for
  // Nagle's algorithm against the peer's delayed ACK (~40 ms per hop; issue 11 round trips).
  const tlsOptions = { key: o.key, cert: o.cert, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2', noDelay: true, handshakeTimeout: preAuthMs } as const
  const tls = createTlsServer(tlsOptions, (socket) => handle(socket, socket.remoteAddress))
  const https = createHttpsServer({ ...tlsOptions, headersTimeout: preAuthMs, requestTimeout: preAuthMs })
  const wss = new WebSocketServer({
    server: https,
    // one packet: fixed header (at most 5 bytes) and body; raised per connection after login
    maxPayload: (o.guard?.preAuthLimit ?? PRE_AUTH_LIMIT) + 5,
    handleProtocols: (protocols) => (protocols.has('mqtt') ? 'mqtt' : protocols.has('mqttv3.1') ? 'mqttv3.1' : false),
  })
  wss.on('connection', (ws, req) => {
    ws.on('error', () => ws.terminate())
    const guard = handle(createWebSocketStream(ws), req.socket.remoteAddress, req)
    guard.onAuthenticated = (max) => raiseFrameLimit(ws, max + 5)
  })
  const servers: Server[] = [tls, https]
  const ports: Listeners['ports'] = {
    tls: await listen(tls, o.tlsPort, o.host),
    ws: await listen(https, o.wsPort, o.host),
  }
  if (o.tcpPort !== undefined) {
    const tcp = createTcpServer({ noDelay: true }, (socket: Socket) => handle(socket, socket.remoteAddress))
    servers.push(tcp)
    ports.tcp = await listen(tcp, o.tcpPort, o.host)
  }
  return {
    ports,
    close: async () => {
      for (const c of wss.clients) c.terminate()
      wss.close()
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => {
        s.close(() => resolve())
        ;(s as Server & { closeAllConnections?: () => void }).closeAllConnections?.()
      })))
    },
  }
}
