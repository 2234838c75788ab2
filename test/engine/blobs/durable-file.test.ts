// The file writer of the embedded document store: what it wrote is byte-identical for any
// chunking (writev of piled-up chunks, background flushes on the way), it never writes over
// an existing file, and a failing upload leaves its descriptor closed.
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import t from 'tap'
import { DurableFileWriter } from '../../../engine/blobs/durable-file.ts'
import { chunked } from './contract.ts'
import { nextEvent } from '../../helpers/wait.ts'

const MiB = 1024 * 1024
const dir = mkdtempSync(join(tmpdir(), 'lintel-durable-'))
let n = 0
const fresh = () => join(dir, `f${++n}`)
const openFds = () => readdirSync('/proc/self/fd').length

t.test('writes exactly the bytes it is given, whatever the chunking and flush interval', async (t) => {
  const cases: [string, Buffer, number, number][] = [
    ['empty', Buffer.alloc(0), 64 * 1024, MiB],
    ['one chunk', randomBytes(1000), 64 * 1024, MiB],
    ['many flushes', randomBytes(5 * MiB + 3), 65_537, 256 * 1024],
    ['chunks larger than the buffer', randomBytes(9 * MiB + 1), 5 * MiB, MiB],
  ]
  for (const [name, data, chunk, syncEvery] of cases) {
    const path = fresh()
    await pipeline(chunked(data, chunk), new DurableFileWriter(path, { syncEvery, highWaterMark: MiB }))
    t.ok(readFileSync(path).equals(data), name)
  }
})

t.test('never writes over an existing file', async (t) => {
  const path = fresh()
  writeFileSync(path, 'kept')
  await t.rejects(pipeline(chunked(Buffer.from('new')), new DurableFileWriter(path)), { code: 'EEXIST' })
  t.equal(readFileSync(path, 'utf8'), 'kept')
})

t.test('an upload that fails midway closes the file', async (t) => {
  const before = openFds()
  const path = fresh()
  async function * failing () { yield randomBytes(MiB); yield randomBytes(MiB); throw new Error('client went away') }
  const writer = new DurableFileWriter(path, { syncEvery: MiB })
  // 'close' comes after _destroy closed the descriptor: the state the assertion is about.
  const closed = nextEvent(writer, 'close', { what: 'the writer\'s close after the failed upload' })
  await t.rejects(pipeline(Readable.from(failing()), writer), /client went away/)
  await closed
  t.equal(openFds(), before, 'no descriptor left open')
})
