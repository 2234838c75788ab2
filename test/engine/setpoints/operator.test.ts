// The operator's switch for setpoints (server/cli.ts `project setpoints`): off for new projects,
// the most urgent allowed priority 8 by default, unlockable down to 1.
import t from 'tap'
import { runCli } from '../../../server/cli.ts'
import { adminEndpoints } from '../../../api/registry.ts'
import { Catalog } from '../../../catalog/index.ts'

t.test('lintel project setpoints', async (t) => {
  const dir = t.testdir()
  process.env.LINTEL_DATA_DIR = dir
  t.teardown(() => { delete process.env.LINTEL_DATA_DIR })
  const run = async (...args: string[]) => { let out = ''; const code = await runCli(args, (s) => { out += s }); return { code, out } }
  await run('company', 'create', '--name', 'Acme', '--admin-email', 'ops@acme.test', '--admin-password', 'ops-password', '--init')
  const c0 = Catalog.open(dir, adminEndpoints)
  const pid = (await c0.projects.create(1, { name: 'site' }, null)).project.id
  t.same(await c0.setpoints.settings(pid), { project_id: pid, enabled: false, max_priority: 8 }, 'off, and nothing above 8, by default')
  await c0.close()

  t.equal((await run('project', 'setpoints', '--id', String(pid), '--enable')).out, `setpoint writing of project ${pid}: enabled\n`)
  t.equal((await run('project', 'setpoints', '--id', String(pid), '--max-priority', '1')).out, `setpoint writing of project ${pid}: unchanged, most urgent allowed priority 1\n`)
  await t.rejects(run('project', 'setpoints', '--id', String(pid), '--max-priority', '17'), /from 1 \(most urgent\) to 16/)
  await t.rejects(run('project', 'setpoints', '--id', String(pid), '--enable', '--disable'), /at most one/)
  await t.rejects(run('project', 'setpoints', '--id', '99', '--enable'), /Project 99 not found/)
  const c1 = Catalog.open(dir, adminEndpoints)
  t.same(await c1.setpoints.settings(pid), { project_id: pid, enabled: true, max_priority: 1 })
  await c1.close()
  await run('project', 'setpoints', '--id', String(pid), '--disable')
  const c2 = Catalog.open(dir, adminEndpoints)
  t.same(await c2.setpoints.settings(pid), { project_id: pid, enabled: false, max_priority: 1 })
  await c2.close()
})
