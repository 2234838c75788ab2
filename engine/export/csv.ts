// An export's rows as CSV bytes (issue 34 item 1): the dialect of protocol/csv/write.ts
// (`datapoint,value,time`, a header line the importer recognises), one Buffer per chunk of
// rows, so the file streams into the document storage with its backpressure.
import { csvField, csvHeader, csvLines } from '../../protocol/csv/write.ts'
import type { Point } from '../store/port.ts'
import type { RowChunk } from './rows.ts'

const valueOf = (p: Point) => p.value

export async function* csvBytes(rows: AsyncIterable<RowChunk>): AsyncGenerator<Buffer> {
  yield Buffer.from(csvHeader('value'))
  let id = ''
  let quoted = ''
  for await (const r of rows) {
    if (r.dataPointID !== id) { id = r.dataPointID; quoted = csvField(id) }
    yield Buffer.from(csvLines(quoted, r.points, valueOf))
  }
}
