// The meter on an upload's path (issue 10): its SHA-256 equals node:crypto's for any
// chunking, concurrent uploads stay apart, and a quota refusal stops the stream with no
// digest given out for the bytes that passed.
import { createHash, randomBytes } from 'node:crypto'
import { pipeline } from 'node:stream/promises'
import { Writable } from 'node:stream'
import t from 'tap'
import { Meter } from '../../../engine/blobs/meter.ts'
import { chunked } from './contract.ts'

const MiB = 1024 * 1024
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
const drain = () => new Writable({ write(_c, _e, done) { done() } })

async function metered(data: Buffer, chunk: number, check: (total: number) => void = () => {}) {
  const meter = new Meter(check)
  await pipeline(chunked(data, chunk), meter, drain())
  return { bytes: meter.bytes, sha256: meter.sha256() }
}

t.test('the SHA-256 equals node:crypto for any chunking', async (t) => {
  const cases: [string, Buffer, number][] = [
    ['empty', Buffer.alloc(0), 64 * 1024],
    ['one byte', Buffer.from('x'), 64 * 1024],
    ['exactly 1 MiB', randomBytes(MiB), 64 * 1024],
    ['1 MiB and a byte, odd chunks', randomBytes(MiB + 1), 65_537],
    ['9 MiB in 1-byte-short chunks', randomBytes(9 * MiB + 7), MiB - 1],
    ['chunks of 3 MiB', randomBytes(6 * MiB + 3), 3 * MiB + 1],
  ]
  for (const [name, data, chunk] of cases) t.same(await metered(data, chunk), { bytes: data.length, sha256: sha(data) }, name)
})

t.test('concurrent uploads stay apart', async (t) => {
  const inputs = [randomBytes(5 * MiB + 11), randomBytes(3 * MiB), randomBytes(100), randomBytes(7 * MiB - 5)]
  const got = await Promise.all(inputs.map((d, i) => metered(d, 40_000 + i * 7_919)))
  t.same(got.map((g) => g.sha256), inputs.map(sha))
})

t.test('a refusal stops the stream; the next upload still hashes right', async (t) => {
  const data = randomBytes(4 * MiB)
  const refused = new Error('over the limit')
  const meter = new Meter((total) => { if (total > 2 * MiB) throw refused })
  await t.rejects(pipeline(chunked(data), meter, drain()), refused)
  t.ok(meter.bytes <= 2 * MiB, 'nothing past the limit went on')
  t.throws(() => meter.sha256(), /has not ended/)
  t.same(await metered(data, 64 * 1024), { bytes: data.length, sha256: sha(data) })
})

t.test('a refusal after the hash went to the worker stops it too; 40 MiB hash right through the in-flight bound', async (t) => {
  const data = randomBytes(12 * MiB)
  const refused = new Error('over the limit')
  const meter = new Meter((total) => { if (total > 10 * MiB) throw refused })
  await t.rejects(pipeline(chunked(data), meter, drain()), refused)
  t.ok(meter.bytes <= 10 * MiB && meter.bytes > 8 * MiB, 'two batches went to the worker first')
  t.throws(() => meter.sha256(), /has not ended/)
  const big = randomBytes(40 * MiB)
  t.same(await metered(big, 64 * 1024), { bytes: big.length, sha256: sha(big) })
})
