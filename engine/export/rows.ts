// The rows of an export (issue 34 item 1): the observations of each series in [start, end),
// series after series in the order given (the caller sorts them by identifier), each in
// ascending time, read from the store in key-set chunks (engine/chunked-read.ts), so memory
// holds one chunk whatever the range. A series is read to its end before the next begins.
import { readInChunks } from '../chunked-read.ts'
import type { Point, TimeseriesStore } from '../store/port.ts'

/** Points per store read of an export: large enough that QuestDB's per-query cost is amortised. */
export const EXPORT_CHUNK = 20_000

export interface ExportSeries { id: number; dataPointID: string }
export interface RowChunk { dataPointID: string; points: Point[] }

export async function* exportRows(store: TimeseriesStore, series: readonly ExportSeries[], start: number, end: number, chunk = EXPORT_CHUNK): AsyncGenerator<RowChunk> {
  for (const s of series) {
    for await (const points of readInChunks(store, s.id, { start, end }, chunk)) {
      if (points.length > 0) yield { dataPointID: s.dataPointID, points }
    }
  }
}
