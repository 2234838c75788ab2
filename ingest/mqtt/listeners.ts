// The broker's network listeners: MQTT over TLS 1.2 and MQTT over secure WebSockets (TLS
// 1.2 only, as spec 3 says), plus plain TCP only when a port is configured (development).
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createTcpServer, type Server, type Socket } from 'node:net'
import { createServer as createTlsServer } from 'node:tls'
import type { Duplex } from 'node:stream'
import type { IncomingMessage } from 'node:http'
import { WebSocketServer, createWebSocketStream } from 'ws'

export interface ListenerOptions {
  host: string
  tlsPort: number
  wsPort: number
  tcpPort?: number
  cert: Buffer
  key: Buffer
}

export interface Listeners {
  ports: { tls: number; ws: number; tcp?: number }
  close(): Promise<void>
}

type Handle = (stream: Duplex | Socket, req?: IncomingMessage) => unknown

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve((server.address() as { port: number }).port)
    })
  })
}

export async function startListeners(handle: Handle, o: ListenerOptions): Promise<Listeners> {
  const tlsOptions = { key: o.key, cert: o.cert, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' } as const
  const tls = createTlsServer(tlsOptions, (socket) => handle(socket))
  const https = createHttpsServer(tlsOptions)
  const wss = new WebSocketServer({
    server: https,
    maxPayload: 16 * 1024 * 1024,
    handleProtocols: (protocols) => (protocols.has('mqtt') ? 'mqtt' : protocols.has('mqttv3.1') ? 'mqttv3.1' : false),
  })
  wss.on('connection', (ws, req) => handle(createWebSocketStream(ws), req))
  const servers: Server[] = [tls, https]
  const ports: Listeners['ports'] = {
    tls: await listen(tls, o.tlsPort, o.host),
    ws: await listen(https, o.wsPort, o.host),
  }
  if (o.tcpPort !== undefined) {
    const tcp = createTcpServer((socket) => handle(socket))
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
