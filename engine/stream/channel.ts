// Hot streams that can be listened to with a plain callback as well as subscribed to.
//
// The live path of the engine hands every stored observation from the observation bus to the
// pipelines: bus → replay's input → lateness watch → fused pipeline. As RxJS Observables each
// of those hops is a Subscriber (next → _next → destination.next → the observer, with its error
// context), per observation. A ListenableObservable is still an Observable (operators,
// tests and cold inputs use it as one), but a consumer that only needs the values calls
// listen(fn) and gets fn called directly. Listenables are hot and never complete: they are
// the live observations, which end only when the listener leaves.
import { Observable, tap } from 'rxjs'

/**
 * Calls `next` with every value from now on; the returned function stops it. `error` is told
 * when a stage between the source and `next` failed on a value (tapValues), which then does
 * not reach `next`; sources themselves never fail.
 */
export type Listen<T> = (next: (value: T) => void, error?: (err: unknown) => void) => () => void

export class ListenableObservable<T> extends Observable<T> {
  constructor (readonly listen: Listen<T>) {
    super((subscriber) => listen((value) => subscriber.next(value), (err) => subscriber.error(err)))
  }
}

export function isListenable<T>(o: Observable<T>): o is ListenableObservable<T> {
  return o instanceof ListenableObservable
}

/**
 * Callbacks called in turn, copied on (un)listen so one leaving during next() skips no one;
 * one that left is not called again, not even for the value being delivered (as a closed
 * Subscriber). `onEmpty` is told when the last listener left.
 */
export class Listeners<T> {
  private entries: { fn: (value: T) => void; live: boolean }[] = []

  constructor (private readonly onEmpty?: () => void) {}

  get size(): number { return this.entries.length }

  add(fn: (value: T) => void): () => void {
    const entry = { fn, live: true }
    this.entries = [...this.entries, entry]
    return () => {
      if (!entry.live) return
      entry.live = false
      this.entries = this.entries.filter((e) => e !== entry)
      if (this.entries.length === 0) this.onEmpty?.()
    }
  }

  next(value: T): void {
    const entries = this.entries
    for (let i = 0; i < entries.length; i++) if (entries[i].live) entries[i].fn(value)
  }
}

/** A hot stream of values pushed with next(): what a Subject does, without a Subscriber per value and listener. */
export class Fanout<T> {
  private readonly listeners = new Listeners<T>()
  readonly observable = new ListenableObservable<T>((fn) => this.listeners.add(fn))

  next(value: T): void {
    this.listeners.next(value)
  }
}

/**
 * `source` with `f` called on each value before it is passed on (RxJS tap), without an
 * operator hop when `source` is listenable. A throwing `f` fails the stream, as tap does.
 */
export function tapValues<T>(source: Observable<T>, f: (value: T) => void): Observable<T> {
  if (!isListenable(source)) return source.pipe(tap(f))
  return new ListenableObservable<T>((next, error) => source.listen((value) => {
    try {
      f(value)
    } catch (err) {
      error?.(err)
      return
    }
    next(value)
  }, error))
}
