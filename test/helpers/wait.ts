// Bounded waits for tests (issue 16 item 8). A test never sleeps to prove that something did
// NOT happen: it waits, with a bound, for the cause it can observe (a counter, a store write
// held at a gate, a later record of the same ordered stream), then asserts the effect.
//   waitFor(predicate, { what })  polls until the predicate gives a truthy value and returns
//                                  it; after `timeoutMs` it throws, naming what it waited for
//                                  (and the last value seen), instead of hanging to tap's
//                                  time-out.
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
