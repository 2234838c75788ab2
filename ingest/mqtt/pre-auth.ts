// Bounds on MQTT connections that have not logged in yet (issue 29 item 2), shared by every
// transport (TLS, WebSockets, plain TCP). Before its CONNECT is authenticated a connection
// is a stranger's: it may hold memory (a partial packet, a partial WebSocket frame, a TLS
// session) but must not hold it long or in numbers:
//   - at most `maxConnections` unauthenticated connections in the process, and at most
//     `maxPerAddress` from one source address (one client cannot take every slot); a
//     connection over either bound is closed as it arrives;
//   - connections from addresses an account logged in from before (`isKnown`: the login
//     throttle's known addresses) count in a pool of `maxConnections` of their own: a login
//     flood holds a slot per guess while its refusal waits (0.5 s), so 1,000 guesses a
//     second from strangers filled the one pool and closed the real device's connections
//     as they arrived (bench:login-flood, 2026-11-27);
//   - each must be authenticated within `timeoutMs` of its arrival (CONNECT sent and its
//     password checked), or it is closed.
// With the 64 KiB pre-login packet bound (packet-guard.ts), what strangers hold is at most
// about maxConnections × 2 × 64 KiB (a WebSocket frame and the packet inside it) plus the
// sockets themselves. An authenticated connection leaves the gate and counts no more.

/** Defaults of the operator settings (api/config.ts). */
export const PRE_AUTH_DEFAULTS = { maxConnections: 500, maxPerAddress: 50, timeoutMs: 10_000 } as const

export interface PreAuthOptions {
  /** Unauthenticated connections in the process at most (LINTEL_MQTT_PREAUTH_MAX). */
  maxConnections?: number
  /** Unauthenticated connections from one source address at most (LINTEL_MQTT_PREAUTH_PER_ADDRESS). */
  maxPerAddress?: number
  /** Time from arrival to a successful login, ms (LINTEL_MQTT_PREAUTH_SECONDS). */
  timeoutMs?: number
  /** Whether an account logged in from this address before; such connections do not compete with strangers' for slots. */
  isKnown?: (address: string) => boolean
}

export type PreAuthRefusal = 'preauth_full' | 'preauth_address_full' | 'preauth_timeout'

/** One slot of the gate; release() is idempotent. */
export interface PreAuthSlot { release(): void }

export class PreAuthGate {
  readonly maxConnections: number
  readonly maxPerAddress: number
  readonly timeoutMs: number
  private open = 0
  private openKnown = 0
  private readonly isKnown: (address: string) => boolean
  private readonly perAddress = new Map<string, number>()

  constructor (opts: PreAuthOptions = {}) {
    this.maxConnections = opts.maxConnections ?? PRE_AUTH_DEFAULTS.maxConnections
    this.maxPerAddress = opts.maxPerAddress ?? PRE_AUTH_DEFAULTS.maxPerAddress
    this.timeoutMs = opts.timeoutMs ?? PRE_AUTH_DEFAULTS.timeoutMs
    this.isKnown = opts.isKnown ?? (() => false)
  }

  /** Unauthenticated connections now. */
  get size(): number {
    return this.open + this.openKnown
  }

  /** A slot for a new connection, or why there is none. */
  enter(address: string | undefined): PreAuthSlot | PreAuthRefusal {
    const known = address !== undefined && this.isKnown(address)
    if ((known ? this.openKnown : this.open) >= this.maxConnections) return 'preauth_full'
    const key = address ?? ''
    const mine = this.perAddress.get(key) ?? 0
    if (mine >= this.maxPerAddress) return 'preauth_address_full'
    if (known) this.openKnown++
    else this.open++
    this.perAddress.set(key, mine + 1)
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        if (known) this.openKnown--
        else this.open--
        const n = (this.perAddress.get(key) ?? 1) - 1
        if (n === 0) this.perAddress.delete(key)
        else this.perAddress.set(key, n)
      },
    }
  }
}
