// The Parquet encoder of an export on a worker thread (parquet.ts): hyparquet-writer encodes
// each row group here, off the API's event loop (a row group of 122,880 rows takes tens of
// milliseconds to encode), and the bytes go back to the export's stream. Messages, in order:
//   in  { kind: 'group', runs: [dataPointID, rows][], times: Float64Array, values: Float64Array }
//   in  { kind: 'finish' }           (the footer)
//   out { chunks: Uint8Array[] }     one answer per message, its bytes in file order
//   out { error: string }            the encoder failed
import { parentPort } from 'node:worker_threads'
import { ByteWriter, ParquetWriter } from 'hyparquet-writer'

const SCHEMA = [
  { name: 'root', num_children: 3 },
  { name: 'datapoint', type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' }, repetition_type: 'REQUIRED' },
  { name: 'time', type: 'INT64', converted_type: 'TIMESTAMP_MICROS', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' }, repetition_type: 'REQUIRED' },
  { name: 'value', type: 'DOUBLE', repetition_type: 'REQUIRED' },
]

/** A ByteWriter whose flush hands the bytes written so far on and starts over (the offsets stay absolute). */
class HandingWriter extends ByteWriter {
  private out: Uint8Array[] = []
  flush(): void {
    if (this.index === 0) return
    this.out.push(new Uint8Array(this.buffer, 0, this.index).slice())
    this.index = 0
  }
  override finish(): void { this.flush() }
  take(): Uint8Array[] { this.flush(); const o = this.out; this.out = []; return o }
}

const writer = new HandingWriter(1 << 20)
const pw = new ParquetWriter({ writer, schema: SCHEMA as never, kvMetadata: [{ key: 'lintel', value: 'export: datapoint, time (UTC, µs), value' }] })

type In = { kind: 'group'; runs: [string, number][]; times: Float64Array; values: Float64Array } | { kind: 'finish' }

parentPort!.on('message', (m: In) => {
  try {
    if (m.kind === 'group') {
      const ids: string[] = new Array(m.times.length)
      let at = 0
      for (const [id, n] of m.runs) ids.fill(id, at, at += n)
      pw.write({
        columnData: [
          { name: 'datapoint', data: ids, encoding: 'RLE_DICTIONARY' },
          { name: 'time', data: m.times },
          { name: 'value', data: m.values },
        ],
        rowGroupSize: m.times.length,
      })
    } else {
      pw.finish()
    }
    const chunks = writer.take()
    parentPort!.postMessage({ chunks }, chunks.map((c) => c.buffer as ArrayBuffer))
  } catch (err) {
    parentPort!.postMessage({ error: (err as Error).message })
  }
})
