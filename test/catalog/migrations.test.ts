import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { openCatalogDb } from '../../catalog/sqlite/db.ts'
import { migrations } from '../../catalog/sqlite/migrations.ts'

t.test('migrations run once and record the schema version; reopening keeps the data', async (t) => {
  const dir = t.testdir()
  const db = openCatalogDb(dir)
  t.equal(db.pragma('user_version', { simple: true }), migrations.length)
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal')
  db.prepare("INSERT INTO companies (name, created_at) VALUES ('X', 0)").run()
  db.close()
  const again = openCatalogDb(dir)
  t.equal(again.pragma('user_version', { simple: true }), migrations.length)
  t.equal((again.prepare('SELECT count(*) AS n FROM companies').get() as { n: number }).n, 1)
  t.equal(again.pragma('foreign_keys', { simple: true }), 1)
  again.close()
})

t.test('processes opening one new data directory at once migrate it exactly once', async (t) => {
  const dir = t.testdir()
  const script = `import { openCatalogDb } from ${JSON.stringify(new URL('../../catalog/sqlite/db.ts', import.meta.url).href)}; openCatalogDb(${JSON.stringify(dir)}).close()`
  const children = Array.from({ length: 4 }, () => spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] }))
  const codes = await Promise.all(children.map(async (c) => { let err = ''; c.stderr!.on('data', (d) => { err += d }); const [code] = await once(c, 'exit'); return code === 0 ? 0 : err }))
  t.same(codes, [0, 0, 0, 0])
  const db = openCatalogDb(dir)
  t.equal(db.pragma('user_version', { simple: true }), migrations.length)
  db.close()
})
