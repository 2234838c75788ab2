// The contract every document-store adapter passes unchanged (STYLE.md habit 1, like
// aedes-persistence's abstract suite): streamed writes visible only when complete, links the
// storage serves (byte-identical, Range, 403 XML after expiry), deletes of keys and spaces.
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import type { Test } from 'tap'
import type { BlobStore } from '../../../engine/blobs/port.ts'

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
const now = () => new Date()

/** A stream of `buf` in chunks of `chunk` bytes, erroring after `failAfter` bytes if given. */
export function chunked(buf: Buffer, chunk = 64 * 1024, failAfter?: number): Readable {
  let at = 0
  return new Readable({
    read() {
      if (failAfter !== undefined && at >= failAfter) return this.destroy(new Error('client went away'))
      if (at >= buf.length) return this.push(null)
      this.push(buf.subarray(at, at += chunk))
    },
  })
}

export function blobContract(t: Test, open: () => Promise<BlobStore>) {
  let store: BlobStore
  const space = `t${randomUUID().slice(0, 8)}`
  t.before(async () => { store = await open() })
  t.teardown(async () => { await store.deletePrefix(space).catch(() => {}); await store.close() })

  t.test('a streamed write is downloaded byte-identical through its link', async (t) => {
    const data = randomBytes(12 * 1024 * 1024 + 123) // more than one multipart part
    const key = `${space}/${randomUUID()}`
    await store.put(key, chunked(data))
    t.equal(await store.size(key), data.length)
    const { url, validUntil } = await store.link(key, { expiresInSeconds: 600, now: now(), filename: 'plan ä.pdf' })
    t.ok(validUntil.getTime() > Date.now() + 590_000 && validUntil.getTime() <= Date.now() + 600_000, 'valid_until is now + expiry')
    const res = await fetch(url)
    t.equal(res.status, 200)
    t.match(res.headers.get('content-disposition') ?? '', /attachment/)
    const got = Buffer.from(await res.arrayBuffer())
    t.equal(got.length, data.length)
    t.equal(sha(got), sha(data), 'same SHA-256')
  })

  t.test('empty and tiny objects', async (t) => {
    for (const data of [Buffer.alloc(0), Buffer.from('x')]) {
      const key = `${space}/${randomUUID()}`
      await store.put(key, chunked(data))
      t.equal(await store.size(key), data.length)
      const res = await fetch((await store.link(key, { expiresInSeconds: 60, now: now() })).url)
      t.equal(res.status, 200)
      t.same(Buffer.from(await res.arrayBuffer()), data)
    }
  })

  t.test('a range of the object', async (t) => {
    const data = randomBytes(100_000)
    const key = `${space}/${randomUUID()}`
    await store.put(key, chunked(data))
    const { url } = await store.link(key, { expiresInSeconds: 60, now: now() })
    const mid = await fetch(url, { headers: { range: 'bytes=1000-1999' } })
    t.equal(mid.status, 206)
    t.equal(mid.headers.get('content-range'), `bytes 1000-1999/${data.length}`)
    t.same(Buffer.from(await mid.arrayBuffer()), data.subarray(1000, 2000))
    const tail = await fetch(url, { headers: { range: 'bytes=-10' } })
    t.equal(tail.status, 206)
    t.same(Buffer.from(await tail.arrayBuffer()), data.subarray(data.length - 10))
    const open = await fetch(url, { headers: { range: 'bytes=99990-' } })
    t.same(Buffer.from(await open.arrayBuffer()), data.subarray(99990))
    const beyond = await fetch(url, { headers: { range: `bytes=${data.length + 5}-` } })
    t.equal(beyond.status, 416)
    await beyond.arrayBuffer()
  })

  t.test('a failed upload leaves no object behind', async (t) => {
    const key = `${space}/${randomUUID()}`
    await t.rejects(store.put(key, chunked(randomBytes(11 * 1024 * 1024), 64 * 1024, 6 * 1024 * 1024)))
    t.equal(await store.size(key), undefined, 'nothing visible under the key')
  })

  t.test('after valid_until the storage answers 403 with the S3 XML error', async (t) => {
    const key = `${space}/${randomUUID()}`
    await store.put(key, chunked(Buffer.from('secret plan')))
    const signedLongAgo = new Date(Date.now() - 3600_000)
    const { url, validUntil } = await store.link(key, { expiresInSeconds: 60, now: signedLongAgo })
    t.ok(validUntil.getTime() < Date.now())
    const res = await fetch(url)
    t.equal(res.status, 403)
    const xml = await res.text()
    t.match(xml, /^<\?xml[^>]*>\s*<Error>/)
    t.match(xml, /<Code>AccessDenied<\/Code>/)
    t.match(xml, /<Message>[^<]*expired[^<]*<\/Message>/i)
    // Key, BucketName, Resource and HostId: the embedded listener sends them all (its own
    // test); S3Proxy sends only Code, Message and RequestId.
    for (const field of ['RequestId']) t.match(xml, new RegExp(`<${field}>[^<]*</${field}>`), `names ${field}`)
    t.notMatch(xml, /secret plan/)
  })

  t.test('a tampered link is refused', async (t) => {
    const key = `${space}/${randomUUID()}`
    await store.put(key, chunked(Buffer.from('abc')))
    const { url } = await store.link(key, { expiresInSeconds: 60, now: now() })
    const other = `${space}/${randomUUID()}`
    await store.put(other, chunked(Buffer.from('other')))
    const res = await fetch(url.replace(key.split('/')[1], other.split('/')[1]))
    t.equal(res.status, 403, 'a link for one key does not open another')
    await res.arrayBuffer()
  })

  t.test('delete a key, then a whole space', async (t) => {
    const keys = [`${space}/sub-a`, `${space}/sub-b`]
    const otherSpace = `${space}x`
    for (const k of [...keys, `${otherSpace}/keep`]) await store.put(k, chunked(Buffer.from(k)))
    t.ok((await store.listPrefixes()).includes(space))
    const { url } = await store.link(keys[0], { expiresInSeconds: 60, now: now() })
    await store.delete(keys[0])
    await store.delete(keys[0]) // a missing key is not an error
    t.equal(await store.size(keys[0]), undefined)
    const gone = await fetch(url)
    t.equal(gone.status, 404, 'a link to a deleted object finds nothing')
    t.match(await gone.text(), /<Code>NoSuchKey<\/Code>/)
    await store.deletePrefix(space)
    t.equal(await store.size(keys[1]), undefined)
    t.notOk((await store.listPrefixes()).includes(space))
    t.equal(await store.size(`${otherSpace}/keep`), Buffer.byteLength(`${otherSpace}/keep`), 'another space is untouched')
    await store.deletePrefix(otherSpace)
  })

  t.test('keys that could escape are refused', async (t) => {
    await t.rejects(store.put('../etc/passwd', chunked(Buffer.from('x'))))
    await t.rejects(store.put('a/../../b', chunked(Buffer.from('x'))))
  })
}
