// Dynamic, time-dependent tags of a series (spec 3, "Time-series line format", rule 4): the
// tag set of an MQTT line (`temp,room=1 value=21.5 <t>`) says which value each key has from
// the observation's time on. Only changes are stored: a row (series, key, valid_from, value)
// holds until the key's next row, and a value is stored only when it differs from the value
// in force at that time. Invariant: the rows of one (series, key), ordered by time, never
// repeat a value twice in a row, so late or out-of-order lines keep the history minimal.
//
// Bounded (STYLE.md habit 6): at most `max_tag_changes_per_series` rows per series and
// `max_tag_changes_per_project` per project (operator settings in catalog_settings, defaults
// 1000 and 100 000). A change over a bound is not stored; record() counts it as overflow so
// the caller can count and log it. Unchanged values cost a lookup, never a row.
//
// Promise-returning from the start (the catalog becomes an async port): methods run on the
// synchronous SQLite driver inside one transaction and resolve with the result.

export interface TagChange { key: string; value: string }
/** The tags of one observation: series (datapoint id), time in µs, pairs as sent. */
export interface TaggedObservation { series: number; time: number; tags: readonly TagChange[] }
export interface TagRecordResult { stored: number; unchanged: number; overflow: number }
export interface TagRow { key: string; value: string; valid_from: number }
export interface TagLimits { perSeries: number; perProject: number }
