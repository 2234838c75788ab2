// Packet size limits of the broker (issue 9, item 2). aedes and mqtt-packet have no maximum
// packet size: the parser buffers whatever remaining length a fixed header declares, so a
// CONNECT declaring 256 MiB is held in memory before any authentication. This stream sits
// between the socket and aedes and reads only the MQTT fixed headers ([MQTT-2.2.3]: one
// type byte, then the remaining length in 1 to 4 bytes of 7 bits each). A packet declaring
// more than the current limit destroys the connection as soon as its header arrives, so no
// byte of its body is buffered:
//   - before authentication: PRE_AUTH_LIMIT (a CONNECT needs a few hundred bytes; 64 KiB
//     leaves room for a will message);
//   - after it (`authenticated()`): the configured maximum (LINTEL_MQTT_MAX_PACKET_KB).
// A client that pipelines a packet larger than PRE_AUTH_LIMIT before its CONNACK is
// therefore refused too; MQTT clients wait for the CONNACK in practice.
// Until authenticated() the connection also holds a slot of the pre-login gate (pre-auth.ts):
// it is closed as it arrives when the gate is full, and when it is not authenticated within
// the gate's time limit (issue 29 item 2).
import { Duplex } from 'node:stream'
import type { PreAuthGate, PreAuthRefusal, PreAuthSlot } from './pre-auth.ts'

export const PRE_AUTH_LIMIT = 64 * 1024

export interface PacketGuardOptions {
  /** Largest remaining length before authentication, bytes (default PRE_AUTH_LIMIT). */
  preAuthLimit?: number
  /** Called once when a packet over the limit closes the connection. */
  onOversize?: (declared: number, limit: number, authenticated: boolean) => void
  /** Bounds unauthenticated connections in number and time; none: unbounded (tests of the size rule). */
  gate?: PreAuthGate
  /** Called once when the gate closes the connection (full, or not logged in in time). */
  onPreAuthRefused?: (why: PreAuthRefusal, address: string | undefined) => void
}

export class PacketGuard extends Duplex {
  /** The peer's address (for login throttling), from the socket under any wrapper. */
  remoteAddress: string | undefined
  private limit: number
  private isAuthenticated = false
  // fixed-header scanner state
  private state: 'type' | 'length' | 'body' = 'type'
  private length = 0
  private multiplier = 1
  private lengthBytes = 0
  private remaining = 0
  private slot: PreAuthSlot | undefined
  private preAuthTimer: NodeJS.Timeout | undefined
  /** Called by authenticated() with the new limit (the WebSocket listener raises its frame limit). */
  onAuthenticated: ((maxPacketBytes: number) => void) | undefined

  constructor (private readonly inner: Duplex, private readonly opts: PacketGuardOptions = {}, remoteAddress?: string) {
    super({ allowHalfOpen: false })
    this.remoteAddress = remoteAddress
    this.limit = opts.preAuthLimit ?? PRE_AUTH_LIMIT
    if (opts.gate) {
      const slot = opts.gate.enter(remoteAddress)
      if (typeof slot === 'string') {
        this.preAuthRefused(slot)
        return
      }
      this.slot = slot
      this.preAuthTimer = setTimeout(() => this.preAuthRefused('preauth_timeout'), opts.gate.timeoutMs)
      this.preAuthTimer.unref()
    }
    inner.on('data', (chunk: Buffer) => {
      if (this.destroyed || !this.scan(chunk)) return
      if (!this.push(chunk)) inner.pause()
    })
    // A peer that sends its last packets and a DISCONNECT, then closes (mosquitto_pub -l at
    // QoS 0 does), ends the socket cleanly: what it sent before stays buffered here until aedes
    // reads it (aedes reads the next chunk only when the packets of the last one are done, and
    // storage-first makes that wait for the store), so only a socket that closed without
    // ending cleanly (a reset, an error) destroys the guard and what it holds.
    let ended = false
    inner.on('end', () => { ended = true; this.push(null) })
    inner.on('error', (err) => this.destroy(err))
    inner.on('close', () => { if (!ended) this.destroy() })
  }

  /** Raises the limit to the maximum packet size after a successful CONNECT. */
  authenticated(maxPacketBytes: number): void {
    this.isAuthenticated = true
    this.limit = maxPacketBytes
    this.leaveGate()
    this.onAuthenticated?.(maxPacketBytes)
  }

  private leaveGate(): void {
    clearTimeout(this.preAuthTimer)
    this.slot?.release()
    this.slot = undefined
  }

  private preAuthRefused(why: PreAuthRefusal): void {
    this.opts.onPreAuthRefused?.(why, this.remoteAddress)
    this.destroy()
  }

  override _read(): void {
    this.inner.resume()
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    // The peer is gone (it closed after its DISCONNECT): nothing can reach it any more.
    if (this.inner.destroyed || this.inner.writableEnded) { cb(); return }
    if (this.inner.write(chunk)) { cb(); return }
    const go = () => { this.inner.off('drain', go); this.inner.off('close', go); cb() }
    this.inner.once('drain', go).once('close', go)
  }

  override _final(cb: (err?: Error | null) => void): void {
    this.inner.end()
    cb()
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    this.leaveGate()
    this.inner.destroy()
    cb(err)
  }

  /** Follows the packet boundaries; false (and the connection destroyed) on an oversize packet. */
  private scan(chunk: Buffer): boolean {
    let i = 0
    while (i < chunk.length) {
      if (this.state === 'body') {
        const take = Math.min(this.remaining, chunk.length - i)
        this.remaining -= take
        i += take
        if (this.remaining === 0) this.state = 'type'
        continue
      }
      if (this.state === 'type') {
        this.state = 'length'
        this.length = 0
        this.multiplier = 1
        this.lengthBytes = 0
        i++
        continue
      }
      const b = chunk[i++]
      this.length += (b & 0x7f) * this.multiplier
      this.multiplier *= 128
      this.lengthBytes++
      if (this.length > this.limit) return this.refuse(this.length)
      if (b & 0x80) {
        if (this.lengthBytes === 4) return this.refuse(this.length) // malformed: [MQTT-2.2.3]
        continue
      }
      this.remaining = this.length
      this.state = this.remaining === 0 ? 'type' : 'body'
    }
    return true
  }

  private refuse(declared: number): false {
    this.opts.onOversize?.(declared, this.limit, this.isAuthenticated)
    this.destroy(new Error(`MQTT packet of at least ${declared} bytes is over the limit of ${this.limit} bytes`))
    return false
  }
}
