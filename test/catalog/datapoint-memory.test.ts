// The embedded catalog's memory of looked-up datapoints (catalog/datapoints.ts findMany): the
// access check of every HTTP and CSV ingest reads datapoints and tags from it, so it must
// never answer with what the catalog no longer holds: tags changed through this connection,
// by another connection (the CLI), a deleted datapoint or project.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { openCatalogDb } from '../../catalog/sqlite/db.ts'
import { Datapoints } from '../../catalog/sqlite/datapoints.ts'
import { Database } from '../../core/sqlite-driver.ts'

const dir = mkdtempSync(join(tmpdir(), 'lintel-dp-memory-'))
const db = openCatalogDb(dir)
db.exec(`
  INSERT INTO companies (id, name, created_at) VALUES (1, 'A', 0);
  INSERT INTO projects (id, company_id, name, created_at, project_handle) VALUES (1, 1, 'p1', 0, 'p1'), (2, 1, 'p2', 0, 'p2');
`)
const dps = new Datapoints(db)
const ids = dps.ensure(1, ['a', 'b'])
dps.ensure(2, ['a'])
const setTag = db.prepare('INSERT OR REPLACE INTO tags (datapoint, key, value) VALUES (?, ?, ?)')
setTag.run(ids.get('a'), 'room', '1')
const tagsOf = (project: number, ident: string) => dps.findMany(project, [ident]).get(ident)?.tags

t.teardown(() => db.close())

t.test('a repeated lookup answers the same, per project', async (t) => {
  t.same(tagsOf(1, 'a'), { room: '1' })
  t.same(tagsOf(1, 'a'), { room: '1' }, 'from memory')
  t.same(tagsOf(2, 'a'), {}, 'the same identifier in another project is another datapoint')
  t.equal(dps.findMany(1, ['a', 'nope']).size, 1, 'unknown identifiers are not found')
})

t.test('a change through the same connection is seen at once', async (t) => {
  t.same(tagsOf(1, 'a'), { room: '1' })
  setTag.run(ids.get('a'), 'room', '2')
  t.same(tagsOf(1, 'a'), { room: '2' })
})

t.test('a commit by another connection (another process, the CLI) is seen at once', async (t) => {
  t.same(tagsOf(1, 'b'), {})
  const other = new Database(join(dir, 'catalog.db'))
  other.prepare('INSERT INTO tags (datapoint, key, value) VALUES (?, ?, ?)').run(ids.get('b'), 'floor', '3')
  t.same(tagsOf(1, 'b'), { floor: '3' })
  other.prepare('DELETE FROM datapoints WHERE id = ?').run(ids.get('b'))
  t.equal(dps.findMany(1, ['b']).size, 0, 'a datapoint deleted elsewhere is gone')
  other.close()
})

t.test('reads inside a transaction that rolls back are not remembered', async (t) => {
  const rolledBack = db.transaction(() => {
    setTag.run(ids.get('a'), 'room', 'draft')
    t.same(tagsOf(1, 'a'), { room: 'draft' }, 'the transaction sees its own change')
    throw new Error('roll back')
  })
  t.throws(() => rolledBack(), /roll back/)
  t.same(tagsOf(1, 'a'), { room: '2' })
})

t.test('what it hands out cannot be changed by a caller', async (t) => {
  const dp = dps.findMany(1, ['a']).get('a')!
  t.throws(() => { dp.tags.room = 'hacked' })
  t.same(tagsOf(1, 'a'), { room: '2' })
})
