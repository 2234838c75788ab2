// Raw MQTT-over-TLS and MQTT-over-WSS client pieces of the issue-29 benchmarks: a CONNECT
// built by hand, a partial packet (a CONNECT header declaring a large remaining length and a
// few bytes of it), a WebSocket upgrade and masked frames written on the TLS socket itself,
// so a benchmark can hold a *partial* WebSocket frame (no client library sends one).
import { randomBytes } from 'node:crypto'
import { connect as netConnect, type Socket } from 'node:net'
import { connect as tlsConnect, createSecureContext, type ConnectionOptions, type TLSSocket } from 'node:tls'

/** The remaining length of MQTT's fixed header ([MQTT-2.2.3]): 7 bits a byte, low first. */
function varint(n: number): Buffer {
  const out: number[] = []
  do {
    let b = n % 128
    n = Math.floor(n / 128)
    if (n > 0) b |= 0x80
    out.push(b)
  } while (n > 0)
  return Buffer.from(out)
}

const str = (s: string): Buffer => {
  const b = Buffer.from(s, 'utf8')
  return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b])
}

/** An MQTT 3.1.1 CONNECT with username and password, clean session, keep-alive 60 s. */
export function connectPacket(clientId: string, username: string, password: string): Buffer {
  const body = Buffer.concat([str('MQTT'), Buffer.from([4, 0xc2, 0, 60]), str(clientId), str(username), str(password)])
  return Buffer.concat([Buffer.from([0x10]), varint(body.length), body])
}

export const DISCONNECT = Buffer.from([0xe0, 0])

/**
 * The start of a CONNECT declaring `declared` bytes of remaining length, with `bodyBytes` of
 * them sent (the protocol name and level first, then zeros): what a stranger can make the
 * server hold before it has a password to check.
 */
export function partialConnect(declared: number, bodyBytes: number): Buffer {
  const start = Buffer.concat([str('MQTT'), Buffer.from([4, 0xc2, 0, 60])])
  const body = Buffer.alloc(Math.max(0, Math.min(bodyBytes, declared)))
  start.copy(body, 0, 0, Math.min(start.length, body.length))
  return Buffer.concat([Buffer.from([0x10]), varint(declared), body])
}

/** MQTT's declared packet size: header bytes plus remaining length. */
export const packetSize = (declared: number): number => 1 + varint(declared).length + declared

/** A masked client WebSocket binary frame header declaring `payloadLength` ([RFC 6455 5.2]), and its mask. */
export function wsFrameHeader(payloadLength: number): { header: Buffer; mask: Buffer } {
  const mask = randomBytes(4)
  let len: Buffer
  if (payloadLength < 126) len = Buffer.from([0x80 | payloadLength])
  else if (payloadLength < 65536) len = Buffer.from([0x80 | 126, payloadLength >> 8, payloadLength & 0xff])
  else { len = Buffer.alloc(9); len[0] = 0x80 | 127; len.writeBigUInt64BE(BigInt(payloadLength), 1) }
  return { header: Buffer.concat([Buffer.from([0x82]), len, mask]), mask }
}

/** `data` masked as the frame's payload starting at byte `offset` of it. */
export function masked(data: Buffer, mask: Buffer, offset = 0): Buffer {
  const out = Buffer.allocUnsafe(data.length)
  for (let i = 0; i < data.length; i++) out[i] = data[i] ^ mask[(offset + i) & 3]
  return out
}

// One context for every connection: without it tls.connect builds a new one each time
// (loading the default CA store), several ms of the client's CPU per connection.
const context = createSecureContext()

export interface Dial { port: number; localAddress?: string; session?: Buffer }

/** A TLS connection (certificate not checked: loopback benchmark), resolved after the handshake. */
export function dialTls(d: Dial): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    // localAddress reaches the TCP connect (net.connect's option; tls's types omit it).
    const opts: ConnectionOptions & { localAddress?: string } = { host: '127.0.0.1', port: d.port, localAddress: d.localAddress, rejectUnauthorized: false, secureContext: context, session: d.session, servername: 'localhost' }
    const s = tlsConnect(opts)
    s.setNoDelay(true)
    // After the handshake a reset (the server closing a refused login) ends the socket; 'close' tells the callers.
    s.once('secureConnect', () => { s.off('error', reject); s.on('error', () => {}); resolve(s) })
    s.once('error', reject)
  })
}

/** A plain TCP connection (the development listener, LINTEL_MQTT_TCP_PORT): the same login path without TLS's cost. */
export function dialTcp(d: Dial): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = netConnect({ host: '127.0.0.1', port: d.port, localAddress: d.localAddress, noDelay: true })
    s.once('connect', () => { s.off('error', reject); s.on('error', () => {}); resolve(s) })
    s.once('error', reject)
  })
}

/** TLS, then the WebSocket upgrade (subprotocol mqtt); resolved after the 101 answer. */
export async function dialWss(d: Dial): Promise<TLSSocket> {
  const s = await dialTls(d)
  s.write(`GET /mqtt HTTP/1.1\r\nHost: 127.0.0.1:${d.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: mqtt\r\n\r\n`)
  await new Promise<void>((resolve, reject) => {
    let got = ''
    const onData = (c: Buffer) => {
      got += c.toString('latin1')
      const end = got.indexOf('\r\n\r\n')
      if (end < 0) return
      s.off('data', onData); s.off('close', onClose)
      if (!got.startsWith('HTTP/1.1 101')) reject(new Error(`no WebSocket upgrade: ${got.slice(0, 80)}`))
      else resolve()
    }
    const onClose = () => reject(new Error('closed during the WebSocket upgrade'))
    s.on('data', onData).once('close', onClose)
  })
  return s
}

/**
 * Sends CONNECT on a socket and resolves with the CONNACK's return code (0 accepted), or
 * 'closed' when the server closed without one.
 */
export function connack(s: Socket, packet: Buffer): Promise<number | 'closed'> {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0)
    const onData = (c: Buffer) => {
      buf = Buffer.concat([buf, c])
      if (buf.length >= 4 && buf[0] === 0x20) { cleanup(); resolve(buf[3]) }
    }
    const onClose = () => { cleanup(); resolve('closed') }
    const cleanup = () => { s.off('data', onData); s.off('close', onClose); s.off('error', onClose) }
    s.on('data', onData).once('close', onClose).once('error', onClose)
    s.write(packet)
  })
}
