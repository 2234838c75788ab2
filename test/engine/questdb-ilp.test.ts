// The store's own ILP encoder writes exactly the bytes @questdb/nodejs-client's Sender writes
// with protocol_version=2 for the same rows (no server needed: both only encode here).
import t from 'tap'
import { Sender } from '@questdb/nodejs-client'
import { IlpEncoder } from '../../engine/store/questdb-ilp.ts'
import { MIN_REAL_TIME, SHIFT } from '../../engine/store/questdb-sql.ts'

t.test('byte for byte the Sender\'s protocol v2 lines', async (t) => {
  const sender = await Sender.fromConfig('http::addr=127.0.0.1:1;auto_flush=off;protocol_version=2')
  t.teardown(() => sender.close())
  const rows: [number, number, number][] = [
    [1, 0, 0], [9, 1, 1.5], [10, -1, -2.25], [123456789, 1_700_000_000_000_000, 0.1 + 0.2],
    [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, Number.MAX_VALUE], [7, MIN_REAL_TIME, Number.MIN_VALUE],
    [42, MIN_REAL_TIME + 999_999_999, -0], [5, -1_000_000_000, 1e300], [6, -999_999_999, -1e-300], [8, 999_999_999, 12345.678],
  ]
  for (let i = 0; i < 500; i++) rows.push([1 + Math.floor(Math.random() * 1e6), Math.floor((Math.random() - 0.3) * 4e15), (Math.random() - 0.5) * 10 ** Math.floor(Math.random() * 20)])
  const data = new Float64Array(rows.flat())
  for (const [series, time, value] of rows) sender.table('obs_x').symbol('series', String(series)).floatColumn('value', value).at(BigInt(time) + SHIFT, 'us')
  const expected = (sender as unknown as { buffer: { toBufferNew(): Buffer } }).buffer.toBufferNew()
  const enc = new IlpEncoder('obs_x', 16)
  enc.encode(data, 0, 3)
  enc.encode(data, 3, rows.length)
  const got = enc.take()
  t.equal(got.length, expected.length)
  t.ok(got.equals(expected), 'same bytes')
  t.equal(enc.bytes, 0, 'take() starts afresh')
})
