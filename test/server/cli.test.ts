// The operator tool: companies and their first admins are made here, never over HTTP.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { runCli } from '../../server/cli.ts'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { cliWithProject } from '../helpers/cli-project.ts'
import { verifyPassword } from '../../catalog/passwords.ts'

t.test('create, rename, add an admin, delete', async (t) => {
  const dir = t.testdir()
  process.env.LINTEL_DATA_DIR = dir
  t.teardown(() => { delete process.env.LINTEL_DATA_DIR })
  const run = async (...args: string[]) => { let out = ''; const code = await runCli(args, (s) => { out += s }); return { code, out } }

  const made = await run('company', 'create', '--name', 'Acme', '--admin-email', 'ops@acme.test', '--init')
  t.equal(made.code, 0)
  t.match(made.out, /created company 1 'Acme' with admin user 1 <ops@acme.test>\ngenerated password \(shown once\): \S{20}\n/)
  const password = made.out.match(/shown once\): (\S+)/)![1]
  t.equal((await run('company', 'create', '--name', 'Beta', '--admin-email', 'b@beta.test', '--admin-password', 'beta-password')).out,
    "created company 2 'Beta' with admin user 2 <b@beta.test>\n")
  await t.rejects(run('company', 'create', '--name', 'Acme', '--admin-email', 'x@acme.test'), { message: "Company 'Acme' already exists" })
  await t.rejects(run('company', 'create', '--name', 'C'), { message: "--admin-email is required for 'company create'" })
  t.equal((await run('company', 'rename', '--id', '1', '--name', 'Acme Corp')).out, "company 1 is now 'Acme Corp'\n")
  t.match((await run('admin', 'create', '--company', '1', '--email', 'second@acme.test', '--password', 'second-pass')).out, /created admin user 3/)
  t.equal((await run('company', 'list')).out, '1\tAcme Corp\t\n2\tBeta\t\n')
  await t.rejects(run('company', 'delete', '--id', '2'), { message: /add --yes/ })

  const catalog = Catalog.open(dir, adminEndpoints)
  const ops = (await catalog.users.findByEmailWithHash('ops@acme.test'))!
  t.ok(await verifyPassword(password, ops.password_hash), 'the printed password is the stored one')
  t.same((await catalog.roles.rolesOfUser(3)).map((r) => r.name), ['admin'])
  await catalog.close()

  t.equal((await run('company', 'delete', '--id', '2', '--yes')).out, "deleted company 2 'Beta' with 0 project(s)\nremoved its documents (1 file space(s))\n")
  t.equal((await run('company', 'list')).out, '1\tAcme Corp\t\n')
  await t.rejects(run('company', 'delete', '--id', '2', '--yes'), { message: 'Company 2 not found' })
  await t.rejects(run('frobnicate'), { message: /unknown command 'frobnicate'/ })
})

t.test('a directory without a catalog is refused unless --init is given', async (t) => {
  const dir = join(t.testdir(), 'typo')
  const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/lintel.js', ...args], { env: { ...process.env, LINTEL_DATA_DIR: dir }, encoding: 'utf8' })
  const refused = cli('company', 'list')
  t.equal(refused.status, 2)
  t.equal(refused.stderr, `lintel: no catalog in '${dir}' (LINTEL_DATA_DIR): start the server there first, point LINTEL_DATA_DIR at your data directory, or add --init to create an empty catalog\n`)
  t.notOk(existsSync(dir), 'nothing was created')
  const init = cli('company', 'list', '--init')
  t.equal(init.status, 0, init.stderr)
  t.same(readdirSync(dir).filter((f) => f === 'catalog.db'), ['catalog.db'])
  t.equal(cli('company', 'list').status, 0, 'from then on, no flag is needed')
})

t.test('project quota and the default quota of datapoints', async (t) => {
  const { dir, run, pid } = await cliWithProject(t, { name: 'p', createdBy: 1, prepare: (catalog, pid) => catalog.datapoints.ensure(pid, ['a', 'b']) })

  t.equal((await run('project', 'quota', '--id', String(pid))).out, `project ${pid}: 2 datapoints, quota 100000 (default)\n`)
  t.equal((await run('project', 'quota', '--id', String(pid), '--datapoints', '2')).out, `project ${pid}: 2 datapoints, quota 2\n`)
  t.equal((await run('quota', 'default', '--datapoints', '50')).out, 'default datapoint quota of projects: 50\n')
  t.equal((await run('quota', 'default')).out, 'default datapoint quota of projects: 50\n')
  await t.rejects(run('project', 'quota', '--id', String(pid), '--datapoints', '1e5'), { message: "--datapoints must be a non-negative integer or 'default', got '1e5'" })
  await t.rejects(run('project', 'quota', '--id', '999'), { message: 'Project 999 not found' })

  const again = Catalog.open(dir, adminEndpoints)
  await t.rejects(again.datapoints.ensure(pid, ['c']), { status: 413, message: `Datapoint quota of project ${pid} reached: it holds 2 of at most 2 datapoints (set by the operator), so 1 new datapoint(s) cannot be created` })
  t.same([...(await again.datapoints.ensure(pid, ['a'])).keys()], ['a'], 'known datapoints resolve at the quota')
  await again.close()
  t.equal((await run('project', 'quota', '--id', String(pid), '--datapoints', 'default')).out, `project ${pid}: 2 datapoints, quota 50 (default)\n`)
  const last = Catalog.open(dir, adminEndpoints)
  t.equal((await last.datapoints.ensure(pid, ['c'])).size, 1)
  await last.close()
})

t.test('currency set, list, delete: exchange rates with a validity start', async (t) => {
  const dir = t.testdir()
  process.env.LINTEL_DATA_DIR = dir
  t.teardown(() => { delete process.env.LINTEL_DATA_DIR })
  const run = async (...args: string[]) => { let out = ''; const code = await runCli(args, (s) => { out += s }); return { code, out } }
  t.equal((await run('currency', 'set', 'EUR', 'USD', '1.08', '--from', '2026-01-01', '--init')).out, 'exchange rate EUR→USD 1.08 valid from 2026-01-01T00:00:00Z\n')
  t.equal((await run('currency', 'set', 'eur', 'usd', '1.1', '--from', '2026-07-01T00:00:00+02:00')).out, 'exchange rate EUR→USD 1.1 valid from 2026-06-30T22:00:00Z\n')
  t.equal((await run('currency', 'list')).out, 'EUR\tUSD\t1.08\t2026-01-01T00:00:00Z\nEUR\tUSD\t1.1\t2026-06-30T22:00:00Z\n')
  await t.rejects(run('currency', 'set', 'EUR', 'USD', '1.08'), { message: "--from is required for 'currency set' (the start of the rate's validity, e.g. 2026-01-01)" })
  await t.rejects(run('currency', 'set', 'EUR', 'USD', '1,08', '--from', '2026-01-01'), { message: "RATE must be a positive number, got '1,08'" })
  await t.rejects(run('currency', 'set', 'EUR', 'USD', '0', '--from', '2026-01-01'), { message: "RATE must be a positive number, got '0'" })
  await t.rejects(run('currency', 'set', 'EURO', 'USD', '1', '--from', '2026-01-01'), { message: "Invalid BASE 'EURO': use a three-letter ISO 4217 code such as EUR or USD" })
  await t.rejects(run('currency', 'set', 'EUR', 'USD', '1', '--from', 'soon'), { message: "--from must be a date or an RFC 3339 timestamp, got 'soon'" })
  t.equal((await run('currency', 'delete', 'EUR', 'USD', '--from', '2026-01-01')).out, 'deleted exchange rate EUR→USD valid from 2026-01-01T00:00:00Z\n')
  await t.rejects(run('currency', 'delete', 'EUR', 'USD', '--from', '2026-01-01'), { message: 'no exchange rate EUR→USD valid from 2026-01-01T00:00:00Z' })
  t.equal((await run('currency', 'list')).out, 'EUR\tUSD\t1.1\t2026-06-30T22:00:00Z\n')
})

t.test('mqtt create --edge and mqtt edge: the operator designates the edge agents (issue 29 item 3)', async (t) => {
  const dir = t.testdir()
  process.env.LINTEL_DATA_DIR = dir
  t.teardown(() => { delete process.env.LINTEL_DATA_DIR })
  const run = async (...args: string[]) => { let out = ''; const code = await runCli(args, (s) => { out += s }); return { code, out } }
  await run('company', 'create', '--name', 'Acme', '--admin-email', 'ops@acme.test', '--admin-password', 'ops-password', '--init')
  const open = () => Catalog.open(dir, adminEndpoints)
  let catalog = open()
  const pid = (await catalog.projects.create(1, { name: 'p' }, 1)).project.id
  await catalog.close()
  const made = await run('mqtt', 'create', '--project', String(pid), '--username', 'plant-gw', '--password', 'plant-gw-pass', '--rights', 'write', '--edge')
  t.match(made.out, /^created MQTT account \d+ 'plant-gw' \(write, edge agent, no expiry\)/)
  await t.rejects(run('mqtt', 'create', '--project', String(pid), '--username', 'ro', '--edge'), { message: '--edge needs --rights write: an edge agent publishes its answers' })
  await run('mqtt', 'create', '--project', String(pid), '--username', 'reader', '--password', 'reader-pass')
  await t.rejects(run('mqtt', 'edge', '--username', 'reader', '--enable'), { message: "MQTT account 'reader' has read rights only: an edge agent needs write rights" })
  await t.rejects(run('mqtt', 'edge', '--username', 'plant-gw'), { message: "'mqtt edge' needs exactly one of --enable or --disable" })
  await t.rejects(run('mqtt', 'edge', '--username', 'nobody', '--disable'), { message: "no MQTT account 'nobody'" })
  catalog = open()
  t.equal((await catalog.mqttAccounts.findValid('plant-gw'))!.edge, 1)
  await catalog.close()
  t.equal((await run('mqtt', 'edge', '--username', 'plant-gw', '--disable')).out, "MQTT account 'plant-gw' is no longer an edge agent: its setpoint answers are dropped\n")
  catalog = open()
  t.equal((await catalog.mqttAccounts.findValid('plant-gw'))!.edge, 0)
  await catalog.close()
  t.equal((await run('mqtt', 'edge', '--username', 'plant-gw', '--enable')).out, "MQTT account 'plant-gw' is now an edge agent: its setpoint answers count\n")
})
