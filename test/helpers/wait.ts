// Bounded waits for tests (issue 16 item 8). A test never sleeps to prove that something did
// NOT happen: it waits, with a bound, for the cause it can observe (a counter, a store write
// held at a gate, a later record of the same ordered stream), then asserts the effect.
//   waitFor(predicate, { what })  polls until the predicate gives a truthy value and returns
//                                  it; after `timeoutMs` it throws, naming what it waited for
//                                  (and the last value seen), instead of hanging to tap's
//                                  time-out.
//   holdsWithin(predicate, { timeoutMs }) the same poll, but false after the bound instead of a
//                                  throw: for helpers whose callers assert with their own
//                                  message (`t.ok(await until(...), 'what')`).
//   isSettled(promise)            whether a promise has settled by now, without waiting for it:
//                                  used after waitFor(cause) to assert "no answer yet" (no
//                                  PUBACK, no HTTP reply) while the cause holds.
//   settleWithin(promise, { what }) the promise's outcome, or a failure naming what did not
//                                  arrive within the bound (e.g. a 'close' event).

export interface WaitOptions {
  /** What is awaited, for the failure message ("the broker to hand the message to the store"). */
  what: string | (() => string)
  /** Bound of the wait (default 5,000 ms). */
  timeoutMs?: number
  /** Poll interval (default 10 ms). */
  intervalMs?: number
}

const describe = (what: WaitOptions['what']) => (typeof what === 'string' ? what : what())

/** Polls `predicate` until it returns a truthy value (returned); fails after the bound. */
export async function waitFor<T>(predicate: () => T | Promise<T>, opts: WaitOptions): Promise<NonNullable<T>> {
  const timeoutMs = opts.timeoutMs ?? 5_000
  const deadline = Date.now() + timeoutMs
  let last: T | undefined
  for (;;) {
    last = await predicate()
    if (last) return last as NonNullable<T>
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${describe(opts.what)} (last: ${JSON.stringify(last)})`)
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 10))
  }
}

/** Polls `predicate` like waitFor: true once it holds, false when the bound passed first. */
export async function holdsWithin(predicate: () => unknown | Promise<unknown>, opts: Omit<WaitOptions, 'what'>): Promise<boolean> {
  const deadline = Date.now() + (opts.timeoutMs ?? 5_000)
  for (;;) {
    if (await predicate()) return true
    if (Date.now() >= deadline) return false
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 10))
  }
}

/**
 * Whether `p` has settled by now. Callbacks already due (I/O of this turn, resolved
 * promises) run first, so a settlement that was already decided is seen.
 */
export async function isSettled(p: Promise<unknown>): Promise<boolean> {
  let done = false
  p.then(() => { done = true }, () => { done = true })
  await new Promise((r) => setImmediate(r))
  return done
}

/** The outcome of `p`, or a rejection naming what did not arrive within the bound. */
export async function settleWithin<T>(p: Promise<T>, opts: Omit<WaitOptions, 'intervalMs'>): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 5_000
  let timer: NodeJS.Timeout | undefined
  const bound = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${describe(opts.what)}`)), timeoutMs)
  })
  try {
    return await Promise.race([p, bound])
  } finally {
    clearTimeout(timer)
  }
}

/** Resolves on the emitter's next `event`, or fails naming it after the bound. */
export function nextEvent(emitter: { once(event: string, f: (...args: any[]) => void): unknown }, event: string, opts: Omit<WaitOptions, 'intervalMs'>): Promise<unknown[]> {
  return settleWithin(new Promise<unknown[]>((resolve) => { emitter.once(event, (...args) => resolve(args)) }), opts)
}

// Closes and messages (issue 36 item 3). A test that waits for a connection to close must
// bound the wait and say why it closed: a close for another reason (a crash, a time-out, a
// takeover) must not pass for the refusal under test.
//   watchClose(c)                 starts listening at once (before the action that should
//                                  close `c`): closed() tells whether it has closed so far;
//                                  within({ what, cause }) waits with a bound, then asserts
//                                  the cause (a refusal counter moved, a close code, ...).
//   messageWithin(c, { what, match }) the next message (topic, text) that matches, bounded.

/** What a closing connection said about why: MQTT 5 DISCONNECT, WebSocket code/reason, errors. */
export interface CloseSeen {
  /** MQTT 5 DISCONNECT reason code, or the WebSocket close code. */
  code?: number
  /** MQTT 5 reason string, or the WebSocket close reason. */
  reason?: string
  /** The last error the connection reported before it closed. */
  error?: string
}

export interface Closable {
  once(event: string, f: (...args: any[]) => void): unknown
  on(event: string, f: (...args: any[]) => void): unknown
}

export interface CloseCause {
  /** The promise the close must come from ("the refusal counter of project 3 moved by one"). */
  what: string
  /** Truthy once the cause is observable; checked with a bound after the close. */
  check: (seen: CloseSeen) => unknown
  /** Bound for the cause after the close (default 2,000 ms: counters move before the close). */
  timeoutMs?: number
}

export interface CloseWatch {
  closed(): boolean
  seen(): CloseSeen
  /** Waits for the close (bounded), then for its cause (bounded); both failures name what was awaited. */
  within(opts: Omit<WaitOptions, 'intervalMs'> & { cause?: CloseCause }): Promise<CloseSeen>
}

export function watchClose(c: Closable): CloseWatch {
  const seen: CloseSeen = {}
  let isClosed = false
  c.on('error', (err: unknown) => { seen.error = err instanceof Error ? err.message : String(err) })
  // mqtt.js emits 'disconnect' with the broker's MQTT 5 DISCONNECT packet.
  c.on('disconnect', (packet: { reasonCode?: number; properties?: { reasonString?: string } } | undefined) => {
    if (packet?.reasonCode !== undefined) seen.code = packet.reasonCode
    if (packet?.properties?.reasonString) seen.reason = packet.properties.reasonString
  })
  const closed = new Promise<void>((resolve) => {
    c.once('close', (code?: unknown, reason?: unknown) => {
      // ws: (code, reason Buffer); net/tls: (hadError); mqtt.js: no arguments.
      if (typeof code === 'number') seen.code = code
      if (reason !== undefined && String(reason) !== '') seen.reason = String(reason)
      isClosed = true
      resolve()
    })
  })
  return {
    closed: () => isClosed,
    seen: () => ({ ...seen }),
    async within(opts) {
      await settleWithin(closed, { what: `the close of ${describe(opts.what)}`, timeoutMs: opts.timeoutMs })
      const cause = opts.cause
      if (cause) {
        try {
          await waitFor(() => cause.check(seen), { what: cause.what, timeoutMs: cause.timeoutMs ?? 2_000 })
        } catch {
          throw new Error(`${describe(opts.what)} closed, but not because ${cause.what} (close: ${JSON.stringify(seen)})`)
        }
      }
      return { ...seen }
    },
  }
}

export interface Subscribable {
  on(event: 'message', f: (topic: string, payload: Buffer) => void): unknown
  removeListener(event: 'message', f: (topic: string, payload: Buffer) => void): unknown
}

/** The next message on `c` that `match` accepts (all by default), or a failure naming it after the bound. */
export async function messageWithin(c: Subscribable, opts: Omit<WaitOptions, 'intervalMs'> & { match?: (topic: string, text: string) => boolean }): Promise<{ topic: string; text: string }> {
  let listener: ((topic: string, payload: Buffer) => void) | undefined
  const next = new Promise<{ topic: string; text: string }>((resolve) => {
    listener = (topic, payload) => {
      const text = String(payload)
      if (!opts.match || opts.match(topic, text)) resolve({ topic, text })
    }
    c.on('message', listener)
  })
  try {
    return await settleWithin(next, opts)
  } finally {
    c.removeListener('message', listener!)
  }
}
