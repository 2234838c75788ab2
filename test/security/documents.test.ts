// Attacks on the document spaces (issue 10 item 4, issue 9): a user without the grant, a
// project role used on another project or on the company space, another company's admin,
// and a link bent to another file. Every refusal is asserted, with the 403 text it gives.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import { addProject, addUser, basic, platform, type Login, type Platform } from '../helpers/platform.ts'
import { fileForm } from '../helpers/multipart.ts'

async function upload(p: Platform, who: Login, url: string, name: string, data = randomBytes(100)) {
  const { payload, headers } = fileForm(name, data)
  const res = await p.app.inject({ method: 'POST', url, payload, headers: { ...headers, authorization: basic(who) } })
  return { status: res.statusCode, body: res.json() }
}

t.test('outsiders of the company and of the project are refused', async (t) => {
  const p = await platform(t)
  const a = await addProject(p, p.admin, 'A')
  const b = await addProject(p, p.admin, 'B')
  t.equal((await upload(p, p.admin, '/v2/company/file', 'contract.pdf')).status, 201)
  t.equal((await upload(p, p.admin, `/v2/project/${b.id}/file`, 'b-secret.pdf')).status, 201)

  // A user with no grant at all.
  const nobody = await addUser(p, 'nobody')
  for (const [method, url, no] of [
    ['GET', '/v2/company/quota', 80], ['GET', '/v2/company/files', 82], ['GET', '/v2/company/file?path=contract.pdf', 83], ['DELETE', '/v2/company/file?path=contract.pdf', 85],
    ['GET', `/v2/project/${b.id}/files`, 92], ['GET', `/v2/project/${b.id}/file?path=b-secret.pdf`, 93],
  ] as const) {
    const res = await p.call(nobody, method, url)
    t.equal(res.status, 403, `${method} ${url}`)
    t.match(res.body.error, `Unauthorized access to endpoint: ${no} - ${method} `)
  }
  const denied = await upload(p, nobody, '/v2/company/file', 'x.txt')
  t.same(denied.body, { success: false, error: 'Unauthorized access to endpoint: 81 - POST /v2/company/file', operation: 'create' })

  // The admin of project A: all of A, nothing of B, nothing of the company space (rule 4).
  const member = await addUser(p, 'member')
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${a.id}/role/${a.adminRoleId}/user/${member.id}`)).status, 201)
  t.equal((await upload(p, member, `/v2/project/${a.id}/file`, 'a.txt')).status, 201)
  t.equal((await p.call(member, 'GET', `/v2/project/${a.id}/files`)).body.items.length, 1)
  const other = await p.call(member, 'GET', `/v2/project/${b.id}/file?path=b-secret.pdf`)
  t.same(other, { status: 403, body: { success: false, error: `Unauthorized access to endpoint: 93 - GET /v2/project/{project_id}/file`, operation: '' } })
  t.equal((await upload(p, member, `/v2/project/${b.id}/file`, 'planted.txt')).status, 403)
  t.equal((await p.call(member, 'DELETE', `/v2/project/${b.id}/file?path=b-secret.pdf`)).status, 403)
  t.equal((await p.call(member, 'GET', '/v2/company/files')).status, 403, 'a project role cannot reach the company space')
  t.equal((await upload(p, member, '/v2/company/file', 'x.txt')).status, 403)

  // Another company's admin: the project does not exist for it; its company space is its own.
  await p.catalog.createCompanyWithAdmin('Rival', { email: 'admin@rival.test', password: 'rival-pass-1' })
  const rival = { email: 'admin@rival.test', password: 'rival-pass-1' }
  const cross = await p.call(rival, 'GET', `/v2/project/${b.id}/file?path=b-secret.pdf`)
  t.equal(cross.status, 404)
  t.match(cross.body.error, `Project ${b.id} not found`)
  t.equal((await upload(p, rival, `/v2/project/${b.id}/file`, 'planted.txt')).status, 404)
  t.same((await p.call(rival, 'GET', '/v2/company/files')).body.items, [], 'the rival sees none of our company files')
  t.equal((await p.call(rival, 'GET', '/v2/company/file?path=contract.pdf')).status, 404)
  t.equal((await p.call(rival, 'DELETE', '/v2/company/file?path=contract.pdf')).status, 404)
  t.equal((await upload(p, rival, '/v2/company/file', 'contract.pdf')).status, 201, 'the same path in its own space is another file')
  t.same((await p.call(p.admin, 'GET', '/v2/company/quota')).body.files.quota_used.files, 1, 'our quota is untouched by the rival')
})

t.test('a link is bound to its file and its expiry', async (t) => {
  const p = await platform(t)
  await upload(p, p.admin, '/v2/company/file', 'public.txt', Buffer.from('public'))
  await upload(p, p.admin, '/v2/company/file', 'private.txt', Buffer.from('private'))
  const pub = (await p.call(p.admin, 'GET', '/v2/company/file?path=public.txt')).body.download_link as string
  const priv = (await p.call(p.admin, 'GET', '/v2/company/file?path=private.txt&expiry=1m')).body.download_link as string
  const privKey = new URL(priv).pathname
  const swapped = new URL(pub)
  swapped.pathname = privKey
  const res1 = await fetch(swapped)
  t.equal(res1.status, 403, 'the signature of one file does not open another')
  t.notMatch(await res1.text(), 'private')
  const longer = new URL(priv)
  longer.searchParams.set('X-Lintel-Expires', String(Number(longer.searchParams.get('X-Lintel-Expires')) + 86400))
  const res2 = await fetch(longer)
  t.equal(res2.status, 403, 'the expiry cannot be extended')
  t.match(await res2.text(), '<Code>SignatureDoesNotMatch</Code>')
  const res3 = await p.app.inject({ method: 'GET', url: new URL(priv).pathname + new URL(priv).search })
  t.equal(res3.statusCode, 404, 'the API does not serve storage paths')
})

t.test('company and project file grants do not stand in for each other', async (t) => {
  const p = await platform(t)
  const proj = await addProject(p, p.admin, 'P')
  t.equal((await upload(p, p.admin, '/v2/company/file', 'company.pdf')).status, 201)
  t.equal((await upload(p, p.admin, `/v2/project/${proj.id}/file`, 'project.pdf')).status, 201)
  const grant = async (name: string, endpoints: number[]) => {
    const u = await addUser(p, name)
    const role = await p.call(p.admin, 'POST', '/v2/company/role', { name, authed_endpoints: endpoints })
    t.equal((await p.call(p.admin, 'POST', `/v2/company/role/${role.body.resource.id}/user/${u.id}`)).status, 201)
    return u
  }
  // The company space's list (82) opens no project space (92), and the reverse.
  const companyReader = await grant('company-reader', [82])
  t.same((await p.call(companyReader, 'GET', '/v2/company/files')).body.items.map((f: { path: string }) => f.path), ['company.pdf'])
  const noProject = await p.call(companyReader, 'GET', `/v2/project/${proj.id}/files`)
  t.equal(noProject.status, 403)
  t.match(noProject.body.error, 'Unauthorized access to endpoint: 92 - GET /v2/project/{project_id}/files')
  // A company role granting the project endpoints covers every project (rule 4), not the company space.
  const projectReader = await grant('project-reader', [92, 93])
  t.same((await p.call(projectReader, 'GET', `/v2/project/${proj.id}/files`)).body.items.map((f: { path: string }) => f.path), ['project.pdf'])
  t.equal((await p.call(projectReader, 'GET', `/v2/project/${proj.id}/file?path=project.pdf`)).status, 200)
  const noCompany = await p.call(projectReader, 'GET', '/v2/company/file?path=company.pdf')
  t.equal(noCompany.status, 403)
  t.match(noCompany.body.error, 'Unauthorized access to endpoint: 83 - GET /v2/company/file')
  t.equal((await upload(p, projectReader, `/v2/project/${proj.id}/file`, 'x.txt')).status, 403, 'reading grants no upload (91)')
})
