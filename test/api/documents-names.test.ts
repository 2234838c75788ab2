// Look-alike document names (issue 29): a path is taken in Unicode NFC, so the NFD and NFC
// spellings of one name are one file; bidi controls are refused with a 400
// naming them, and nothing is stored from the refused request.
import t from 'tap'
import { basic, platform, type Platform } from '../helpers/platform.ts'
import { fileForm } from '../helpers/multipart.ts'

async function send(p: Platform, url: string, name: string, data: Buffer, method: 'POST' | 'PUT' = 'POST') {
  const { payload, headers } = fileForm(name, data)
  const res = await p.app.inject({ method, url, payload, headers: { ...headers, authorization: basic(p.admin) } })
  return { status: res.statusCode, body: res.json() }
}

const nfd = 'Cafe\u0301' // "Café" as e + combining acute (macOS file names)
const nfc = 'Caf\u00e9' // "Café" as one character

t.test('NFD and NFC spellings of a name are one file, stored in NFC', async (t) => {
  const p = await platform(t)
  const up = await send(p, `/v2/company/file?folder=${encodeURIComponent(nfd)}`, `${nfd}.txt`, Buffer.from('one'))
  t.equal(up.status, 201)
  t.equal(up.body.resource.path, `${nfc}/${nfc}.txt`, 'the answer names the NFC path')
  const again = await send(p, `/v2/company/file?folder=${encodeURIComponent(nfc)}`, `${nfc}.txt`, Buffer.from('two'))
  t.equal(again.status, 400, 'the look-alike is the same file, not a second one')
  t.match(again.body.error, 'already exists')
  const list = await p.call(p.admin, 'GET', '/v2/company/files')
  t.same(list.body.items.map((f: { path: string }) => f.path), [`${nfc}/${nfc}.txt`])
  t.equal((await p.call(p.admin, 'GET', `/v2/company/files?search=${encodeURIComponent(nfd)}`)).body.items.length, 1, 'search in either form')
  t.equal((await p.call(p.admin, 'GET', `/v2/company/file?path=${encodeURIComponent(`${nfd}/${nfd}.txt`)}`)).status, 200, 'a link by the NFD path')
  t.equal((await send(p, `/v2/company/file?folder=${encodeURIComponent(nfd)}`, `${nfc}.txt`, Buffer.from('three'), 'PUT')).status, 201, 'replace by either form')
  t.equal((await p.call(p.admin, 'DELETE', `/v2/company/file?path=${encodeURIComponent(nfd)}`)).status, 200, 'delete by the NFD folder')
  t.equal((await p.call(p.admin, 'GET', '/v2/company/files')).body.items.length, 0)
})

t.test('bidi controls in a path are refused with 400 naming them; nothing stored', async (t) => {
  const p = await platform(t)
  for (const [c, code] of [['\u202e', 'U+202E'], ['\u2066', 'U+2066'], ['\u200f', 'U+200F'], ['\u061c', 'U+061C']]) {
    const name = `invoice${c}fdp.exe`
    const up = await send(p, '/v2/company/file', name, Buffer.from('x'))
    t.equal(up.status, 400, code)
    t.match(up.body.error, `bidirectional control ${code}`)
    t.notOk(up.body.error.includes(c), 'the message shows the control escaped, not raw')
    const folder = await send(p, `/v2/company/file?folder=${encodeURIComponent(`a${c}b`)}`, 'x.txt', Buffer.from('x'))
    t.equal(folder.status, 400, `${code} in the folder`)
    t.equal((await p.call(p.admin, 'GET', `/v2/company/file?path=${encodeURIComponent(name)}`)).status, 400, `${code} in a link request`)
    t.equal((await p.call(p.admin, 'DELETE', `/v2/company/file?path=${encodeURIComponent(name)}`)).status, 400, `${code} in a delete`)
  }
  t.same((await p.call(p.admin, 'GET', '/v2/company/quota')).body.files.quota_used, { files: 0, space_bytes: 0 }, 'nothing stored')
})
