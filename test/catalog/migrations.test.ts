import t from 'tap'
import { openCatalogDb } from '../../catalog/db.ts'
import { migrations } from '../../catalog/migrations.ts'

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
