// PacketGuard: follows MQTT fixed headers across chunk boundaries and cuts a connection off
// as soon as a header declares more than the limit (issue 9, item 2).
import t from 'tap'
import { PassThrough } from 'node:stream'
import { PacketGuard } from '../../ingest/mqtt/packet-guard.ts'

/** A fixed header (type byte + remaining length) and `body` bytes. */
function packet(type: number, body: number): Buffer {
  const len: number[] = []
  let x = body
  do { let b = x % 128; x = Math.floor(x / 128); if (x > 0) b |= 0x80; len.push(b) } while (x > 0)
  return Buffer.concat([Buffer.from([type, ...len]), Buffer.alloc(body, 1)])
}

function guarded(preAuthLimit: number) {
  const inner = new PassThrough()
  const oversize: number[] = []
  const guard = new PacketGuard(inner, { preAuthLimit, onOversize: (declared) => oversize.push(declared) }, '192.0.2.1')
  const passed: Buffer[] = []
  guard.on('data', (c: Buffer) => passed.push(c))
  guard.on('error', () => {})
  return { inner, guard, passed, oversize }
}

t.test('packets within the limit pass unchanged, split anywhere', async (t) => {
  const { inner, guard, passed, oversize } = guarded(1000)
  const bytes = Buffer.concat([packet(0x10, 20), packet(0xc0, 0), packet(0x30, 1000), packet(0x30, 200)])
  for (let i = 0; i < bytes.length; i += 7) inner.write(bytes.subarray(i, i + 7)) // headers split across chunks
  await new Promise((r) => setImmediate(r))
  t.same(Buffer.concat(passed), bytes)
  t.same(oversize, [])
  t.equal(guard.destroyed, false)
  t.equal(guard.remoteAddress, '192.0.2.1')
})

t.test('a header over the limit destroys the connection before its body is read', async (t) => {
  const { inner, guard, passed, oversize } = guarded(64 * 1024)
  inner.write(Buffer.from([0x10, 0xff])) // first length byte only: 127 so far, continuing
  await new Promise((r) => setImmediate(r))
  t.equal(guard.destroyed, false, 'a partial length under the limit waits for more')
  inner.write(Buffer.from([0xff, 0xff, 0x7f])) // 268,435,455 bytes declared
  await new Promise((r) => setImmediate(r))
  t.equal(guard.destroyed, true)
  t.equal(inner.destroyed, true, 'the socket is closed')
  t.equal(oversize.length, 1)
  t.ok(oversize[0] > 64 * 1024, 'decided on the partial length, a lower bound of the declared one')
  t.equal(Buffer.concat(passed).length, 2, 'only the bytes before the decision reached aedes')
})

t.test('after authentication the configured maximum applies', async (t) => {
  const { inner, guard, passed, oversize } = guarded(100)
  inner.write(packet(0x10, 50))
  guard.authenticated(5000)
  inner.write(packet(0x30, 4000))
  await new Promise((r) => setImmediate(r))
  t.equal(guard.destroyed, false)
  inner.write(packet(0x30, 5001))
  await new Promise((r) => setImmediate(r))
  t.equal(guard.destroyed, true)
  t.same(oversize, [5001])
  t.equal(Buffer.concat(passed).length, 52 + 4003)
})

t.test('a remaining length of more than four bytes is malformed', async (t) => {
  const { inner, guard } = guarded(Number.MAX_SAFE_INTEGER)
  inner.write(Buffer.from([0x30, 0x80, 0x80, 0x80, 0x80, 0x01]))
  await new Promise((r) => setImmediate(r))
  t.equal(guard.destroyed, true)
})

t.test('a peer that ends cleanly and closes: what it sent stays readable until read; later writes are dropped', async (t) => {
  const inner = new PassThrough()
  const guard = new PacketGuard(inner, { preAuthLimit: 1000 })
  const bytes = Buffer.concat([packet(0x30, 100), packet(0x30, 100), packet(0xe0, 0)]) // two PUBLISH, DISCONNECT
  inner.end(bytes)
  await new Promise((r) => inner.once('end', r)) // the guard took every byte; nobody has read them yet
  inner.destroy()
  await new Promise((r) => setImmediate(r))
  t.equal(guard.destroyed, false, 'a clean end does not throw away what is buffered')
  // aedes answers the packets it handled while it reads on: a PUBACK to the gone peer.
  await new Promise<void>((resolve, reject) => guard.write(Buffer.from([0x40, 0x02, 0, 1]), (err) => (err ? reject(err) : resolve())))
  t.pass('is dropped, not an error and not a hang')
  const read: Buffer[] = []
  for await (const chunk of guard) read.push(chunk as Buffer)
  t.same(Buffer.concat(read), bytes, 'aedes reads every packet the peer sent before it closed')
})

t.test('a socket that closes without ending (a reset) destroys the guard', async (t) => {
  const inner = new PassThrough()
  const guard = new PacketGuard(inner, { preAuthLimit: 1000 })
  guard.on('error', () => {})
  inner.write(packet(0x30, 10))
  inner.destroy()
  await new Promise((r) => setImmediate(r))
  t.equal(guard.destroyed, true)
})
