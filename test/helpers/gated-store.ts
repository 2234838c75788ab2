// A time-series store for tests that puts a gate in front of a real store's append (issue 16
// item 8): the test holds writes (they wait at the gate), releases them, or makes them fail,
// and reads counters of what reached the store. It implements engine/store/port.ts, so the
// platform composes it like any adapter (server/main.ts start(config, { wrapStore })), and
// durable-before-ack, no ack on a failed write and back-pressure can be checked end to end
// at the broker and over HTTP.
import type { MeanPoint, Observation, Point, RangeQuery, SampleQuery, TimeseriesStore } from '../../engine/store/port.ts'

export class GatedStore implements TimeseriesStore {
  /** Appends waiting at the closed gate now. */
  held = 0
  /** Appends the inner store has made durable (resolved). */
  stored = 0
  /** Appends refused by fail(). */
  failed = 0
  private open = true
  private waiters: (() => void)[] = []
  private failure: { error: () => Error; times: number } | undefined

  constructor (readonly inner: TimeseriesStore) {}

  /** Closes the gate: appends from now on wait until release(). */
  hold(): void { this.open = false }

  /** Opens the gate and ends fail(): held and later appends go on to the store. */
  release(): void {
    this.open = true
    this.failure = undefined
    const ws = this.waiters
    this.waiters = []
    for (const w of ws) w()
  }

  /** The next `times` appends (default: all until release()) reject with `error()`, nothing stored. */
  fail(error: () => Error, times = Infinity): void { this.failure = { error, times } }

  async append(batch: readonly Observation[]): Promise<void> {
    if (!this.open) {
      this.held++
      await new Promise<void>((resolve) => this.waiters.push(resolve))
      this.held--
    }
    if (this.failure && this.failure.times > 0) {
      this.failure.times--
      this.failed++
      throw this.failure.error()
    }
    await this.inner.append(batch)
    this.stored++
  }

  read(series: number, q: RangeQuery): Promise<Point[]> { return this.inner.read(series, q) }
  sample(series: number, q: SampleQuery): Promise<MeanPoint[]> { return this.inner.sample(series, q) }
  count(series: number, start?: number, end?: number): Promise<number> { return this.inner.count(series, start, end) }
  listSeries(): Promise<number[]> { return this.inner.listSeries() }
  deleteSeries(series: readonly number[]): Promise<void> { return this.inner.deleteSeries(series) }
  replaceRange(series: number, start: number, end: number, points: readonly Point[]): Promise<void> { return this.inner.replaceRange(series, start, end, points) }
  close(): Promise<void> { this.release(); return this.inner.close() }
}
