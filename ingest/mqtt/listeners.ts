// The broker's network listeners: MQTT over TLS 1.2 and MQTT over secure WebSockets (TLS
// 1.2 only, as spec 3 says), plus plain TCP only when a port is configured (development).
// Every connection reaches aedes through a PacketGuard (packet-guard.ts), which bounds the
// size of each MQTT packet; a WebSocket message is bounded to the same size.
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createTcpServer, type Server, type Socket } from 'node:net'
import { createServer as createTlsServer } from 'node:tls'
import type { Duplex } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import { WebSocketServer, createWebSocketStream } from 'ws'
import { PacketGuard, type PacketGuardOptions } from './packet-guard.ts'

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
  const handle = (stream: Duplex, address: string | undefined, req?: IncomingMessage) => aedesHandle(new PacketGuard(stream, o.guard, address), req)
  // noDelay: small packets (PUBACKs, controls messages) leave at once instead of waiting for
  // Nagle's algorithm against the peer's delayed ACK (~40 ms per hop; issue 11 round trips).
  const tlsOptions = { key: o.key, cert: o.cert, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2', noDelay: true } as const
  const tls = createTlsServer(tlsOptions, (socket) => handle(socket, socket.remoteAddress))
  const https = createHttpsServer(tlsOptions)
  const wss = new WebSocketServer({
    server: https,
    maxPayload: o.maxPacketBytes + 5, // one packet: fixed header (at most 5 bytes) and body
    handleProtocols: (protocols) => (protocols.has('mqtt') ? 'mqtt' : protocols.has('mqttv3.1') ? 'mqttv3.1' : false),
  })
  wss.on('connection', (ws, req) => handle(createWebSocketStream(ws), req.socket.remoteAddress, req))
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
