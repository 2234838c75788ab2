// The operator CLI's tests (test/server/cli*.test.ts): a data directory of the test's own with
// company 1 (created by `lintel company create --init`) and one project in it, and `run` to
// call the CLI in-process with its output.
import type { Test } from 'tap'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { runCli } from '../../server/cli.ts'

export async function cliWithProject(t: Test, o: { name?: string; createdBy?: number | null; prepare?: (catalog: Catalog, pid: number) => Promise<unknown> } = {}) {
  const dir = t.testdir()
  process.env.LINTEL_DATA_DIR = dir
  t.teardown(() => { delete process.env.LINTEL_DATA_DIR })
  const run = async (...args: string[]) => { let out = ''; const code = await runCli(args, (s) => { out += s }); return { code, out } }
  await run('company', 'create', '--name', 'Acme', '--admin-email', 'ops@acme.test', '--admin-password', 'ops-password', '--init')
  const catalog = Catalog.open(dir, adminEndpoints)
  const pid = (await catalog.projects.create(1, { name: o.name ?? 'P' }, o.createdBy ?? null)).project.id
  await o.prepare?.(catalog, pid)
  await catalog.close()
  return { dir, run, pid }
}
