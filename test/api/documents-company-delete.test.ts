// Deleting a company with the operator's tool makes its document links stop working at once
// (issue 29), not at the server's next orphan sweep; another company's links keep working.
import t from 'tap'
import { runCli } from '../../server/cli.ts'
import { ADMIN, livePlatform } from '../helpers/live-platform.ts'
import { basic, type Login } from '../helpers/platform.ts'

t.test('company delete: its document links answer 404 at once, the other company\'s still 200', async (t) => {
  const dir = t.testdir()
  const { platform } = await livePlatform(t, { LINTEL_DATA_DIR: dir })
  const other: Login = { email: 'admin@gone.test', password: 'gone-admin-pass' }
  const { company } = await platform.catalog.createCompanyWithAdmin('Gone', other)
  await platform.catalog.projects.create(company.id, { name: 'P' }, null)
  const upload = async (who: Login, path: string) => {
    const form = new FormData()
    form.append('file', new Blob([Buffer.from(`file at ${path}`)]), 'a.txt')
    const res = await fetch(`${platform.address}${path}`, { method: 'POST', body: form, headers: { authorization: basic(who) } })
    t.equal(res.status, 201, `upload ${path}`)
  }
  const link = async (who: Login, path: string) => {
    const res = await fetch(`${platform.address}${path}?path=a.txt`, { headers: { authorization: basic(who) } })
    return (await res.json() as { download_link: string }).download_link
  }
  await upload(other, '/v2/company/file')
  await upload(ADMIN, '/v2/company/file')
  const goneLinks = [await link(other, '/v2/company/file')]
  const keptLink = await link(ADMIN, '/v2/company/file')
  for (const l of [...goneLinks, keptLink]) t.equal((await fetch(l)).status, 200, 'before: served')

  process.env.LINTEL_DATA_DIR = dir
  t.teardown(() => { delete process.env.LINTEL_DATA_DIR })
  let out = ''
  t.equal(await runCli(['company', 'delete', '--id', String(company.id), '--yes'], (s: string) => { out += s }), 0)
  t.match(out, `deleted company ${company.id} 'Gone' with 1 project(s)\nremoved its documents (2 file space(s))\n`)
  for (const l of goneLinks) {
    const res = await fetch(l)
    t.equal(res.status, 404, 'the deleted company\'s link stops at once')
    t.match(await res.text(), '<Code>NoSuchKey</Code>')
  }
  t.equal((await fetch(keptLink)).status, 200, 'the other company\'s link still works')
})
