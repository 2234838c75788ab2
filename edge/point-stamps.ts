// Observation times of the agent's points. The platform keeps one value per datapoint and time
// (the one stored last), and the agent stamps in milliseconds, so two readings of one point in
// the same millisecond (a COV notification and a poll answer handled in one turn of a busy
// event loop, a renewal's initial notification beside a change) would leave one of them. A
// reading at or just before the point's previous time is stamped 1 ms after it instead: both
// arrive, in the order read. Only within MAX_SHIFT_MS: after a larger step back of the system
// clock (a correction), its time is taken as it is.
export const MAX_SHIFT_MS = 1000

export class PointStamps {
  private readonly last = new Map<string, number>()

  /** The time (ms) to publish a reading of `point` taken at `atMs`. */
  stamp(point: string, atMs: number): number {
    const before = this.last.get(point)
    const ms = before !== undefined && atMs <= before && before - atMs < MAX_SHIFT_MS ? before + 1 : atMs
    this.last.set(point, ms)
    return ms
  }
}
