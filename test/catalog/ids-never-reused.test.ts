// Issue 9, item 7: ids users see are never handed out twice, and migration 4 (which rebuilds
// eight tables for that) keeps every row of a populated catalog of the old schema, child
// tables included, also a table another migration adds that cascades from mqtt_accounts.
import t from 'tap'
import type BetterSqlite3 from 'better-sqlite3'
import { Database } from '../../core/sqlite-driver.ts'
import { migrate } from '../../catalog/sqlite/db.ts'
import { migrations } from '../../catalog/sqlite/migrations.ts'
import { Catalog } from '../../catalog/index.ts'
import { adminEndpoints } from '../../api/registry.ts'

const REBUILT = ['companies', 'projects', 'users', 'roles', 'tag_auths', 'datapoints', 'mqtt_accounts', 'virtual_datapoints']
const ALL = [...REBUILT, 'role_endpoints', 'user_roles', 'tags', 'tokens', 'devices', 'device_tags', 'device_datapoints', 'vdp_logs', 'mqtt_account_grants']

/** A catalog at schema version 3 (before ids were protected), with rows in every table. */
function oldCatalog(): BetterSqlite3.Database {
  const db = new Database(':memory:')
  db.pragma('foreign_keys = ON')
  for (let v = 0; v < 3; v++) db.exec(migrations[v] as string)
  db.pragma('user_version = 3')
  // A child table as another engineer's migration adds it: cascades from mqtt_accounts.
  db.exec('CREATE TABLE mqtt_account_grants (account INTEGER NOT NULL REFERENCES mqtt_accounts(id) ON DELETE CASCADE, filter TEXT NOT NULL)')
  db.exec(`
    INSERT INTO companies (id, name, created_at) VALUES (1, 'A', 0), (2, 'B', 0);
    INSERT INTO projects (id, company_id, name, created_at, project_handle) VALUES (1, 1, 'p1', 0, 'p1'), (2, 1, 'p2', 0, 'p2'), (3, 2, 'p3', 0, 'p3');
    INSERT INTO users (id, company_id, email, first_name, last_name, password_hash, created_at) VALUES (1, 1, 'a@x', 'a', 'a', 'h', 0), (2, 2, 'b@x', 'b', 'b', 'h', 0);
    INSERT INTO roles (id, company_id, project_id, name) VALUES (1, 1, NULL, 'admin'), (2, 1, 1, 'admin'), (3, 2, 3, 'r');
    INSERT INTO role_endpoints (role_id, endpoint) VALUES (2, 30), (3, 52);
    INSERT INTO tag_auths (id, role_id, key, value, read, write) VALUES (1, 2, 'dataPointID', '*', 1, 1), (2, 3, 'room', '1', 1, 0);
    INSERT INTO user_roles (user_id, role_id) VALUES (1, 1), (1, 2), (2, 3);
    INSERT INTO datapoints (id, project_id, datapoint_id, hash_id, created_at) VALUES (1, 1, 'a', 'h1', 0), (2, 1, 'b', 'h2', 0), (3, 3, 'c', 'h3', 0);
    INSERT INTO tags (datapoint, key, value) VALUES (1, 'room', '1'), (3, 'room', '2');
    INSERT INTO tokens (token_hash, user_id, expires_at) VALUES ('t1', 1, 0);
    INSERT INTO mqtt_accounts (id, project_id, username, password_hash, rights) VALUES (1, 1, 'dev1', 'h', 'write'), (2, 3, 'dev2', 'h', 'read');
    INSERT INTO mqtt_account_grants (account, filter) VALUES (1, 'room=1'), (2, 'room=2');
    INSERT INTO devices (id, project_id, device_id) VALUES (1, 1, 'd');
    INSERT INTO device_tags (device, key, value) VALUES (1, 'k', 'v');
    INSERT INTO device_datapoints (device, datapoint) VALUES (1, 1);
    INSERT INTO virtual_datapoints (id, project_id, datapoint_id, type, pins, parameters, status_code, created_at) VALUES (1, 1, 'v', 'formula', '{}', '{}', 202, 0);
    INSERT INTO vdp_logs (vdp, ts, status_code, message) VALUES (1, '0', 100, 'created');
  `)
  return db
}

const counts = (db: BetterSqlite3.Database) => Object.fromEntries(ALL.map((n) => [n, db.prepare(`SELECT count(*) FROM ${n}`).pluck().get()]))

t.test('migration 4 on a populated catalog of the old schema keeps every row and cascades still work', async (t) => {
  const db = oldCatalog()
  const before = counts(db)
  migrate(db)
  t.equal(db.pragma('user_version', { simple: true }), migrations.length)
  t.same(counts(db), before, 'no row lost, children of rebuilt tables included')
  t.equal(db.pragma('foreign_keys', { simple: true }), 1, 'foreign keys are on again')
  t.same(db.pragma('foreign_key_check'), [])
  for (const n of REBUILT) t.match(db.prepare("SELECT sql FROM sqlite_master WHERE name = ?").pluck().get(n), /AUTOINCREMENT/, `${n} has AUTOINCREMENT`)
  t.ok(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'roles_name'").get(), 'indexes are recreated')
  t.same(db.prepare('SELECT project_id, datapoints FROM project_limits ORDER BY project_id').all(), [
    { project_id: 1, datapoints: 2 }, { project_id: 2, datapoints: 0 }, { project_id: 3, datapoints: 1 }])
  // The references of child tables reach the rebuilt parents: deletes cascade as before.
  db.exec('DELETE FROM mqtt_accounts WHERE id = 1')
  t.same(db.prepare('SELECT account FROM mqtt_account_grants').pluck().all(), [2])
  db.exec('DELETE FROM projects WHERE id = 3')
  t.same(db.prepare('SELECT count(*) FROM datapoints WHERE project_id = 3').pluck().get(), 0)
  t.same(db.prepare('SELECT count(*) FROM mqtt_account_grants').pluck().get(), 0)
  t.same(db.prepare('SELECT count(*) FROM roles WHERE id = 3').pluck().get(), 0)
  // And the highest ids are not handed out again.
  t.equal(Number(db.prepare("INSERT INTO projects (company_id, name, created_at) VALUES (1, 'new', 0)").run().lastInsertRowid), 4)
  db.close()
})

t.test('after a delete no catalog id users see is handed out again', async (t) => {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  t.teardown(() => catalog.close())
  const { company, user } = await catalog.createCompanyWithAdmin('A', { email: 'a@a.test', password: 'password-1' })
  const { project, role } = await catalog.projects.create(company.id, { name: 'p' }, user.id)
  const [dp] = (await catalog.datapoints.ensure(project.id, ['x'])).values()
  const acc = await catalog.mqttAccounts.create(project.id, { username: 'dev', password: 'password-1', rights: 'write', validUntil: null })
  const vdp = await catalog.virtualDatapoints.create(project.id, { dataPointID: 'v', type: 'formula', description: '', pins: {}, parameters: {}, status_code: 100 }, 'm')
  const user2 = await catalog.users.create(company.id, { email: 'b@a.test', password: 'password-1', firstName: 'b', lastName: 'b' })
  const role2 = await catalog.roles.create(company.id, project.id, { name: 'r', authed_tags: [{ key: 'room', value: '1', read: true, write: false }] })
  const tagAuth = role2.authed_tags[0].id
  const company2 = await catalog.companies.create('B')

  await catalog.users.delete(user2.id)
  await catalog.roles.delete(role2.id)
  await catalog.projects.delete(project.id)
  await catalog.companies.delete(company2.id)

  const again = await catalog.projects.create(company.id, { name: 'p' }, user.id)
  t.ok(again.project.id > project.id, 'project id')
  t.ok(again.role.id > role2.id && again.role.id > role.id, 'role id')
  t.ok(again.role.authed_tags[0].id > tagAuth, 'tag auth id')
  t.ok([...(await catalog.datapoints.ensure(again.project.id, ['x'])).values()][0] > dp, 'datapoint id')
  t.ok((await catalog.mqttAccounts.create(again.project.id, { username: 'dev', password: 'password-1', rights: 'write', validUntil: null })).id > acc.id, 'mqtt account id')
  t.ok((await catalog.virtualDatapoints.create(again.project.id, { dataPointID: 'v', type: 'formula', description: '', pins: {}, parameters: {}, status_code: 100 }, 'm')).id > vdp.id, 'virtual datapoint id')
  t.ok((await catalog.users.create(company.id, { email: 'b@a.test', password: 'password-1', firstName: 'b', lastName: 'b' })).id > user2.id, 'user id')
  t.ok((await catalog.companies.create('B')).id > company2.id, 'company id')
})
