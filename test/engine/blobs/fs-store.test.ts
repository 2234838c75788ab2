// The embedded document store: the shared contract, plus what only it has (its temporary
// files, the XML fields of its 403, a restart keeping links valid).
import { readdirSync, readlinkSync } from 'node:fs'
import { get, type IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { openFsBlobStore } from '../../../engine/blobs/fs-store.ts'
import { blobContract, chunked } from './contract.ts'
import { waitFor } from '../../helpers/wait.ts'

const dir = t.testdir()
t.test('contract', async (t) => blobContract(t, () => openFsBlobStore({ dir, host: '127.0.0.1', port: 0 })))

t.test('a failed upload leaves no temporary file; the 403 body names every field', async (t) => {
  const d = t.testdir()
  const store = await openFsBlobStore({ dir: d, host: '127.0.0.1', port: 0 })
  t.teardown(() => store.close())
  await t.rejects(store.put('c1/x', chunked(randomBytes(300_000), 10_000, 100_000)))
  t.same(readdirSync(join(d, 'tmp')), [])
  await store.put('c1/y', chunked(Buffer.from('y')))
  const { url } = await store.link('c1/y', { expiresInSeconds: 1, now: new Date(Date.now() - 5000) })
  const xml = await (await fetch(url)).text()
  for (const [field, value] of [['Key', 'c1/y'], ['BucketName', 'files'], ['Resource', '/files/c1/y']]) t.match(xml, `<${field}>${value}</${field}>`)
})

t.test('links survive a restart (the secret is kept); a new secret breaks them', async (t) => {
  const d = t.testdir()
  const a = await openFsBlobStore({ dir: d, host: '127.0.0.1', port: 0 })
  await a.put('p1/doc', chunked(Buffer.from('doc')))
  const link = await a.link('p1/doc', { expiresInSeconds: 600, now: new Date() })
  await a.close()
  const b = await openFsBlobStore({ dir: d, host: '127.0.0.1', port: 0 })
  t.teardown(() => b.close())
  const again = link.url.replace(/^http:\/\/[^/]+/, b.listenerUrl)
  t.equal((await fetch(again)).status, 200)
  const c = await openFsBlobStore({ dir: d, host: '127.0.0.1', port: 0, secret: randomBytes(32) })
  t.teardown(() => c.close())
  t.equal((await fetch(link.url.replace(/^http:\/\/[^/]+/, c.listenerUrl))).status, 403)
})

t.test('a download the client abandons closes the file; the listener serves on', async (t) => {
  const d = t.testdir()
  const store = await openFsBlobStore({ dir: d, host: '127.0.0.1', port: 0 })
  t.teardown(() => store.close())
  const data = randomBytes(64 * 1024 * 1024)
  await store.put('c1/big', chunked(data, 1024 * 1024))
  const { url } = await store.link('c1/big', { expiresInSeconds: 600, now: new Date() })
  const big = join(d, 'objects', 'c1', 'big')
  const openOnBig = () => readdirSync('/proc/self/fd').filter((fd) => { try { return readlinkSync(`/proc/self/fd/${fd}`) === big } catch { return false } }).length
  const res = await new Promise<IncomingMessage>((resolve, reject) => get(url, resolve).on('error', reject))
  t.equal(res.statusCode, 200)
  await new Promise<void>((resolve) => res.once('data', () => resolve()))
  t.equal(openOnBig(), 1, 'the listener reads the file')
  res.destroy() // the client goes away after its first chunk, 64 MiB unread
  await waitFor(() => openOnBig() === 0, { what: () => `the store to close the file the client stopped reading (${openOnBig()} open)` })
  t.equal(openOnBig(), 0, 'the file is closed')
  const again = Buffer.from(await (await fetch(url, { headers: { range: 'bytes=1048570-1048579' } })).arrayBuffer())
  t.same(again, data.subarray(1048570, 1048580))
})
