// Issue 29 item 2: what a stranger can hold on the broker before logging in, on every
// transport. Real platform, raw TLS sockets and a hand-made WebSocket upgrade (a client
// library would refuse to send the frames an attacker sends).
import t from 'tap'
import { once } from 'node:events'
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls'
import type { IClientOptions } from 'mqtt'
import { livePlatform } from '../helpers/live-platform.ts'
import { waitFor } from '../helpers/wait.ts'

type Live = Awaited<ReturnType<typeof livePlatform>>
const T = 1_700_000_000_000_000_000n

/** A TLS connection that completed its handshake, from a chosen loopback address. */
async function rawTls(live: Live, port: number, localAddress = '127.0.0.1'): Promise<TLSSocket & { gone: Promise<void> }> {
  const s = tlsConnect({ host: '127.0.0.1', port, ca: live.ca, servername: 'localhost', localAddress } as ConnectionOptions) as TLSSocket & { gone: Promise<void> }
  s.on('error', () => {})
  s.gone = new Promise<void>((resolve) => s.once('close', () => resolve()))
  // A connection the gate refuses may be closed before the client sees its handshake end.
  await Promise.race([new Promise<void>((resolve) => s.once('secureConnect', () => resolve())), s.gone])
  return s
}

/** A WebSocket upgrade on the broker's WSS port, by hand; resolves once the server answered 101. */
async function rawWebSocket(live: Live) {
  const s = await rawTls(live, live.platform.broker.ports.ws)
  s.write('GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: mqtt\r\n\r\n')
  const [head] = await once(s, 'data') as [Buffer]
  if (!head.toString().startsWith('HTTP/1.1 101')) throw new Error(`no upgrade: ${head.toString()}`)
  return s
}

/** The header of a masked binary frame declaring `length` bytes (a client's frame, RFC 6455 5.2). */
function frameHeader(length: number): Buffer {
  const len = Buffer.alloc(8)
  len.writeBigUInt64BE(BigInt(length))
  return Buffer.concat([Buffer.from([0x82, 0x80 | 127]), len, Buffer.from([1, 2, 3, 4])])
}

/** Streams up to `max` bytes until the server closes; how much was written and how long it took. */
async function streamUntilClosed(s: TLSSocket & { gone: Promise<void> }, max: number) {
  const started = Date.now()
  const chunk = Buffer.alloc(64 * 1024, 0x41)
  let written = 0
  let closed = false
  void s.gone.then(() => { closed = true })
  while (!closed && written < max) {
    written += chunk.length
    if (!s.write(chunk)) await Promise.race([new Promise<void>((resolve) => s.once('drain', () => resolve())), s.gone])
  }
  await s.gone
  return { written, ms: Date.now() - started }
}

t.test('WebSockets before login: frames over 64 KiB are refused at their header and the socket is dropped at once', async (t) => {
  const live = await livePlatform(t, { LINTEL_MQTT_MAX_PACKET_KB: '128' })
  // A frame header declaring 256 MiB: before, the server read and discarded for 30 s.
  const huge = await rawWebSocket(live)
  huge.write(frameHeader(256 * 1024 * 1024))
  const r = await streamUntilClosed(huge, 64 * 1024 * 1024)
  t.ok(r.written < 8 * 1024 * 1024, `closed after ${r.written} bytes, ${r.ms} ms`)

  // A 100 KiB frame (within the after-login limit of 128 KiB), half sent and held: before, the
  // server buffered it and kept the connection.
  const held = await rawWebSocket(live)
  held.write(frameHeader(100 * 1024))
  held.write(Buffer.alloc(50 * 1024, 0x41))
  await waitFor(() => held.destroyed || held.readableEnded, { what: 'the server to close a 100 KiB frame before login', timeoutMs: 10_000 })
  t.pass('a 100 KiB frame before login closes the connection')

  // After login the frame limit is the configured packet size: a 100 KiB publish is stored.
  const pid = await live.project('Frames')
  const dev = await live.account(pid, 'dev', 'write')
  const ws = await live.connect(dev, { via: 'ws' })
  await ws.publishAsync(`lintel/p${pid}`, `ws-big value=1 ${T}\n` + '#'.repeat(100 * 1024), { qos: 1 })
  t.equal((await live.read(pid, 'ws-big')).data.length, 1, 'a 100 KiB PUBLISH over WebSockets after login is stored')
})

t.test('connections not logged in are bounded in number, per address and in total', async (t) => {
  const live = await livePlatform(t, { LINTEL_MQTT_PREAUTH_MAX: '3', LINTEL_MQTT_PREAUTH_PER_ADDRESS: '2' })
  const pid = await live.project('Gate')
  const dev = await live.account(pid, 'gate-dev', 'write')
  const tls = live.platform.broker.ports.tls
  const refused = () => live.platform.broker.metrics().connections_preauth_refused
  const idle = [await rawTls(live, tls, '127.0.0.2'), await rawTls(live, tls, '127.0.0.2')]
  const third = await rawTls(live, tls, '127.0.0.2')
  await waitFor(() => refused() === 1, { what: 'a third idle connection from one address to be refused' })
  await third.gone
  idle.push(await rawTls(live, tls, '127.0.0.3'))
  const fourth = await rawTls(live, tls, '127.0.0.4')
  await waitFor(() => refused() === 2, { what: 'a fourth idle connection in all to be refused' })
  await fourth.gone
  await t.rejects(live.connect(dev, { via: 'ws' }), 'while the gate is full, a new connection (any transport) is closed before its CONNECT')
  t.equal(refused(), 3)
  for (const s of idle) s.destroy()
  await waitFor(async () => live.connect(dev).then(() => true, () => false), { what: 'the device to connect once the idle connections are gone', timeoutMs: 20_000 })
  t.pass('slots are given back when the strangers leave')
  t.ok(await live.connect(dev, { via: 'ws' }), 'and a logged-in connection holds none: the next one gets in too')
})

t.test('strangers filling the pre-login gate do not keep a gateway out of an address it logged in from', async (t) => {
  // A login flood holds a slot per guess while its refusal waits 0.5 s: 1,000 guesses a second
  // filled the 500 slots and closed the real device's connections as they arrived
  // (bench:login-flood). Addresses an account logged in from have slots of their own.
  const live = await livePlatform(t, { LINTEL_MQTT_PREAUTH_MAX: '3', LINTEL_MQTT_PREAUTH_PER_ADDRESS: '50' })
  const pid = await live.project('Reserve')
  const gw = await live.account(pid, 'reserve-gw', 'write')
  const from = (localAddress: string) => ({ localAddress }) as IClientOptions
  await (await live.connect(gw, from('127.0.0.1'))).endAsync()
  const tls = live.platform.broker.ports.tls
  const refused = () => live.platform.broker.metrics().connections_preauth_refused
  const strangers = [await rawTls(live, tls, '127.0.0.2'), await rawTls(live, tls, '127.0.0.3'), await rawTls(live, tls, '127.0.0.4')]
  const extra = await rawTls(live, tls, '127.0.0.5')
  await waitFor(() => refused() === 1, { what: 'a fourth stranger to be refused: the gate is full' })
  await extra.gone
  t.ok(await live.connect(gw, from('127.0.0.1')), 'the gateway connects from its known address while strangers fill the gate')
  t.ok(await live.connect(gw, { ...from('127.0.0.1'), via: 'ws' }), 'over WebSockets too')
  await t.rejects(live.connect(gw, from('127.0.0.9')), 'from an address no account logged in from, it waits like any stranger')
  t.equal(refused(), 2)
  t.ok(strangers.every((s) => !s.destroyed), 'the strangers keep their slots')
  for (const s of strangers) s.destroy()
})

t.test('a connection must log in within the pre-login time limit', async (t) => {
  const live = await livePlatform(t, { LINTEL_MQTT_PREAUTH_SECONDS: '1' })
  const idle = await rawTls(live, live.platform.broker.ports.tls)
  const partial = await rawTls(live, live.platform.broker.ports.tls)
  partial.write(Buffer.from([0x10, 0x80, 0x01])) // a CONNECT declaring 128 bytes, body never sent
  const started = Date.now()
  await Promise.all([idle.gone, partial.gone])
  t.ok(Date.now() - started < 10_000, `both closed after ${Date.now() - started} ms`)
  t.equal(live.platform.broker.metrics().connections_preauth_timeout, 2)
})
