// The catalog port's contract (test/catalog/contract.ts) run against the SQLite adapter, in
// memory and on a data directory (WAL file), as the embedded mode uses it.
import t from 'tap'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { catalogContract } from './contract.ts'

t.test('in memory', async (t) => {
  catalogContract(t, async (t) => {
    const c = Catalog.open(':memory:', adminEndpoints)
    t.teardown(() => c.close())
    return c
  })
})

t.test('on a data directory', async (t) => {
  catalogContract(t, async (t) => {
    const c = Catalog.open(t.testdir(), adminEndpoints)
    t.teardown(() => c.close())
    return c
  })
})
