// `lintel quota show|set`: the operator's quotas reach the API's quota record.
import t from 'tap'
import { parseSize } from '../../server/cli-quota.ts'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { cliWithProject } from '../helpers/cli-project.ts'

t.test('set and show the quotas of a company and a project space', async (t) => {
  const { dir, run, pid } = await cliWithProject(t)
  const project = { id: pid }

  t.same(await run('quota', 'set', '--company', '1', '--file-size', '500M', '--files', '100', '--space', '2G'), {
    code: 0, out: 'file space of company 1: largest file 524288000 bytes, 0 of 100 files, 0 of 2147483648 bytes used\n',
  })
  t.same(await run('quota', 'set', '--project', String(project.id), '--files', '3'), {
    code: 0, out: `file space of project ${project.id}: largest file 2147483648 bytes, 0 of 3 files, 0 of 21474836480 bytes used\n`,
  }, 'unnamed limits keep their defaults')
  t.match((await run('quota', 'show', '--company', '1')).out, '0 of 100 files')
  await t.rejects(run('quota', 'set', '--company', '1'), { message: /give at least one of --file-size/ })
  await t.rejects(run('quota', 'show', '--company', '1', '--project', '1'), { message: /exactly one of --company or --project/ })
  await t.rejects(run('quota', 'show', '--company', '9'), { message: 'Company 9 not found' })
  await t.rejects(run('quota', 'set', '--company', '1', '--space', 'lots'), { message: "--space must be bytes or a number with K, M, G or T, got 'lots'" })

  const after = Catalog.open(dir, adminEndpoints)
  t.teardown(() => after.close())
  t.same(await after.files.quota({ kind: 'company', companyId: 1 }), {
    quota_limits: { file_size_bytes: 500 * 1024 ** 2, files: 100, space_bytes: 2 * 1024 ** 3 },
    quota_used: { files: 0, space_bytes: 0 }, quota_available: { files: 100, space_bytes: 2 * 1024 ** 3 },
  })
})

t.test('sizes', async (t) => {
  t.equal(parseSize('1024', 'x'), 1024)
  t.equal(parseSize('10k', 'x'), 10240)
  t.equal(parseSize('1GiB', 'x'), 1024 ** 3)
  t.equal(parseSize('3 TB', 'x'), 3 * 1024 ** 4)
  t.throws(() => parseSize('-1', 'x'))
})
