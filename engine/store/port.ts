// Port of the time-series store (DESIGN.md "Two ways to run"): the embedded adapter
// (SQLite, sqlite-store.ts) and the scaled adapter (QuestDB, questdb-store.ts) implement it
// and pass one contract suite (test/engine/store-contract.ts).
// Times are integer microseconds since the Unix epoch (DESIGN.md Conventions).

/** One observation of one series. `series` is the catalog's integer datapoint id. */
export interface Observation {
  series: number
  time: number
  value: number
}

export interface Point { time: number; value: number }
export interface MeanPoint { time: number; mean: number }

/**
 * A range read. Bounds are half-open [start, end) (DESIGN.md). `limit` 0 or absent = no limit.
 * order 'asc' takes the first `limit` points from start; 'desc' takes the last `limit`
 * points before end; results are always returned in ascending time order.
 */
/**
 * A raw read of one series: the half-open range [start, end) (either bound may be absent);
 * `from: 'first'` (default) gives the first `limit` points from `start`, `from: 'last'` the
 * last `limit` points before `end`; both answer in ascending time. No `limit`: all of them.
 */
export interface RangeQuery {
  start?: number
  end?: number
  limit?: number
  from?: 'first' | 'last'
}

/** What a sample bucket reports (issue 14 item 4); `mean` is the spec's default. */
export type Aggregate = 'mean' | 'min' | 'max' | 'sum' | 'first' | 'last' | 'count'
export const AGGREGATES: readonly Aggregate[] = ['mean', 'min', 'max', 'sum', 'first', 'last', 'count']

/** Calendar buckets: local midnights of an IANA zone (weeks start on Monday), DST-correct. */
export interface CalendarInterval { unit: 'day' | 'week' | 'month'; zone: string }

/** Fixed length in microseconds (aligned to the epoch) or calendar buckets (engine/store/buckets.ts). */
export type Interval = number | CalendarInterval

/**
 * Down-sampling. Fixed intervals: buckets aligned to the epoch, floor(t / interval) * interval.
 * Only buckets that hold observations are returned (empty intervals dropped), ascending.
 * `start` and `end` bound the raw observations, [start, end). Each point's `mean` holds the
 * requested aggregate (default mean); `count` gives the number of observations.
 */
export interface SampleQuery {
  start?: number
  end?: number
  interval: Interval
  aggregate?: Aggregate
}

/**
 * How a store that can encode answers (TimeseriesStore.readAnswer/sampleAnswer) frames
 * them (engine/answer-json.ts): `head` is the text before the first entry, `field` the
 * name of each entry's number (`value`, `mean`, or the aggregate), `lastBuckets` keeps only
 * the last n buckets of a sample (engine/read-plan.ts); `tail` ends the text (default `]}`).
 */
export interface AnswerFrame { head: string; field: string; lastBuckets?: number; tail?: string }

/** What a store reports of its own work, for the operator's metrics (issue 34 item 4); every member optional. */
export interface StoreObserver {
  /** One commit of appends took this long. */
  commit?(seconds: number): void
  /** One compaction step (ingest tail into the main table and rollups) took this long. */
  compaction?(seconds: number): void
  /** Rows in the ingest tail now. */
  tailRows?(rows: number): void
}

/**
 * What a retention step removes (issue 34 item 2): raw observations with time < `raw`, and
 * rollup rows of level `level` (µs; stores with rollups) whose bucket ends at or before `before`.
 */
export interface TrimBounds { raw?: number; rollups?: Array<{ level: number; before: number }> }
/** Rows removed by one step, and whether more may be left (call again). */
export interface TrimResult { rows: number; more: boolean }

export interface TimeseriesStore {
  /** Durable once the promise resolves; same (series, time) replaces the value. */
  append(batch: readonly Observation[]): Promise<void>
  read(series: number, q: RangeQuery): Promise<Point[]>
  sample(series: number, q: SampleQuery): Promise<MeanPoint[]>
  /** Number of raw observations in [start, end). */
  count(series: number, start?: number, end?: number): Promise<number>
  /** Ids of series that hold at least one observation. */
  listSeries(): Promise<number[]>
  deleteSeries(series: readonly number[]): Promise<void>
  /**
   * Replaces what `series` holds in [start, end) by `points` (each inside the range): a
   * virtual datapoint's replay (engine/vdp/range-replay.ts) rewrites its outputs this way.
   * Ordered with the appends of this process; durable and visible once resolved.
   */
  replaceRange(series: number, start: number, end: number, points: readonly Point[]): Promise<void>
  close(): Promise<void>
  /**
   * Retention: one bounded step (about `maxRows` rows at most) of removing what lies before
   * the bounds in `series`, ordered with the appends and never holding them for long; disk
   * space is returned where the store can (engine/retention/ runs the steps).
   */
  trim?(series: readonly number[], bounds: TrimBounds, maxRows: number): Promise<TrimResult>
  /**
   * Optional: the whole JSON answer of a read (spec 1, GET /v2/datapoint/timeseries) as
   * UTF-8 bytes, read and encoded off the event loop (the SQLite store's reader workers).
   * Byte for byte what the main thread would encode from read()/sample().
   */
  readAnswer?(series: number, q: RangeQuery, frame: AnswerFrame): Promise<Uint8Array>
  sampleAnswer?(series: number, q: SampleQuery, frame: AnswerFrame): Promise<Uint8Array>
}
