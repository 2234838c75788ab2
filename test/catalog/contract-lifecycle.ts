// The catalog contract's part for the data lifecycle (catalog/lifecycle.ts; issue 34 item 2),
// run by catalogContract on both adapters: deletion audits newest first in pages, kept after
// the datapoint is gone; retention per project validated, kept everything by default.
import type { Test } from 'tap'
import type { OpenCatalog } from './contract.ts'
import { KEEP_EVERYTHING } from '../../catalog/lifecycle.ts'

export function lifecycleContract(t: Test, open: OpenCatalog): void {
  t.test('data lifecycle: deletion audit in pages, retention validated, listed, removed with its project', async (t) => {
    const c = await open(t)
    const { company, user } = await c.createCompanyWithAdmin('Acme', { email: 'admin@acme.test', password: 'admin-pass-1' })
    const { project: p } = await c.projects.create(company.id, { name: 'P' }, user.id)
    const { project: q } = await c.projects.create(company.id, { name: 'Q' }, user.id)
    const ids = await c.datapoints.ensure(p.id, ['a'])
    const first = await c.lifecycle.recordDeletion({ project_id: p.id, dataPointID: 'a', kind: 'range', start: 10, end: 20, actor: 'admin@acme.test', at: 1000 })
    t.match(first, { project_id: p.id, dataPointID: 'a', kind: 'range', start: 10, end: 20, actor: 'admin@acme.test', at: 1000 })
    await c.datapoints.remove([ids.get('a')!])
    const second = await c.lifecycle.recordDeletion({ project_id: p.id, dataPointID: 'a', kind: 'datapoint', start: null, end: null, actor: 'x@acme.test', at: 2000 })
    await c.lifecycle.recordDeletion({ project_id: q.id, dataPointID: 'b', kind: 'range', start: 1, end: 2, actor: 'x@acme.test', at: 3000 })
    t.same((await c.lifecycle.deletions(p.id, { limit: 10 })).map((d) => d.id), [second.id, first.id], 'newest first, of the project only, kept after the datapoint is gone')
    t.same((await c.lifecycle.deletions(p.id, { limit: 1 })).map((d) => d.id), [second.id])
    t.same((await c.lifecycle.deletions(p.id, { limit: 10, before: second.id })).map((d) => d.id), [first.id], 'the next page')
    t.match((await c.lifecycle.deletions(p.id, { limit: 1 }))[0], { kind: 'datapoint', start: null, end: null })

    t.same(await c.lifecycle.retention(p.id), KEEP_EVERYTHING, 'the default keeps everything')
    const r = { raw: 86_400, rollup_15m: 604_800, rollup_1h: 604_800, rollup_1d: null }
    t.same(await c.lifecycle.setRetention(p.id, r), r)
    t.same(await c.lifecycle.retention(p.id), r)
    await t.rejects(c.lifecycle.setRetention(q.id, { ...KEEP_EVERYTHING, raw: 59 }), { status: 400, message: /raw must be at least 60 seconds/ })
    await t.rejects(c.lifecycle.setRetention(q.id, { ...KEEP_EVERYTHING, raw: 3600, rollup_15m: 60 }), { status: 400, message: /rollup_15m \(60 seconds\) must not be shorter than that of raw \(3600 seconds\)/ })
    await t.rejects(c.lifecycle.setRetention(q.id, { ...KEEP_EVERYTHING, rollup_1h: 3600 }), { status: 400, message: /must not be shorter than that of rollup_15m \(kept forever\)/ })
    t.same(await c.lifecycle.retention(q.id), KEEP_EVERYTHING, 'a refused retention changes nothing')
    t.same(await c.lifecycle.retentions(), [{ project_id: p.id, retention: r }])
    await c.lifecycle.setRetention(p.id, KEEP_EVERYTHING)
    t.same(await c.lifecycle.retentions(), [], 'keeping everything again leaves nothing to sweep')
    await c.lifecycle.setRetention(q.id, { ...KEEP_EVERYTHING, raw: 60 })
    await c.projects.delete(q.id)
    t.same(await c.lifecycle.retentions(), [], 'removed with the project')
    t.same(await c.lifecycle.deletions(q.id, { limit: 10 }), [])
  })
}
