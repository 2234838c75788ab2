// The catalog contract's part for export jobs (catalog/exports.ts; issue 34 item 1), run by
// catalogContract on both adapters: created running, progress only while running, ended once,
// stale jobs failed, the project's newest kept, gone with the project.
import type { Test } from 'tap'
import { MAX_EXPORT_JOBS_PER_PROJECT } from '../../catalog/exports.ts'
import type { OpenCatalog } from './contract.ts'

const SPEC = { datapoints: ['a', 'b'], start: 1_700_000_000_000_000, end: 1_700_086_400_000_000 }

export function exportJobsContract(t: Test, open: OpenCatalog): void {
  t.test('export jobs: running, progress, ended once, stale ones failed, kept per project, gone with it', async (t) => {
    const c = await open(t)
    const { company, user } = await c.createCompanyWithAdmin('Acme', { email: 'admin@acme.test', password: 'admin-pass-1' })
    const { project: p } = await c.projects.create(company.id, { name: 'P' }, user.id)
    const { project: q } = await c.projects.create(company.id, { name: 'Q' }, user.id)
    const j = await c.exportJobs.create({ project_id: p.id, user_id: user.id, format: 'parquet', path: 'exports/a.parquet', spec: SPEC, rows_estimate: 5000 }, 100)
    t.same(j, { id: j.id, project_id: p.id, user_id: user.id, format: 'parquet', path: 'exports/a.parquet', spec: SPEC, state: 'running', rows_done: 0, rows_estimate: 5000, bytes: null, error: null, created_at: 100, heartbeat: 100, finished_at: null })
    t.same(await c.exportJobs.get(p.id, j.id), j)
    t.equal(await c.exportJobs.get(q.id, j.id), undefined, 'not through another project')
    t.equal(await c.exportJobs.progress(j.id, 2500, 150), true)
    t.match(await c.exportJobs.get(p.id, j.id), { rows_done: 2500, heartbeat: 150, state: 'running' })
    t.equal(await c.exportJobs.finish(j.id, { state: 'done', rows_done: 5000, bytes: 12345 }, 200), true)
    t.match(await c.exportJobs.get(p.id, j.id), { state: 'done', rows_done: 5000, bytes: 12345, finished_at: 200, error: null })
    t.equal(await c.exportJobs.finish(j.id, { state: 'failed', rows_done: 0, error: 'late' }, 300), false, 'ended once')
    t.equal(await c.exportJobs.progress(j.id, 1, 300), false, 'no progress after the end')
    t.match(await c.exportJobs.get(p.id, j.id), { state: 'done', rows_done: 5000 })

    const live = await c.exportJobs.create({ project_id: p.id, user_id: user.id, format: 'csv', path: 'exports/b.csv', spec: SPEC, rows_estimate: 1 }, 1000)
    const stale = await c.exportJobs.create({ project_id: q.id, user_id: user.id, format: 'csv', path: 'exports/c.csv', spec: SPEC, rows_estimate: 1 }, 400)
    t.equal(await c.exportJobs.failStale(500, 'interrupted', 1100), 1, 'only the job whose heartbeat is older')
    t.match(await c.exportJobs.get(q.id, stale.id), { state: 'failed', error: 'interrupted', finished_at: 1100 })
    t.match(await c.exportJobs.get(p.id, live.id), { state: 'running' })
    t.equal(await c.exportJobs.finish(stale.id, { state: 'done', rows_done: 1, bytes: 1 }, 1200), false, 'a failed stale job stays failed')
    t.same((await c.exportJobs.list(p.id)).map((x) => x.id), [live.id, j.id], 'newest first')

    for (let i = 0; i < MAX_EXPORT_JOBS_PER_PROJECT + 5; i++) {
      const x = await c.exportJobs.create({ project_id: p.id, user_id: user.id, format: 'csv', path: `exports/${i}.csv`, spec: SPEC, rows_estimate: 0 }, 2000 + i)
      await c.exportJobs.finish(x.id, { state: 'done', rows_done: 0, bytes: 0 }, 2000 + i)
    }
    const kept = await c.exportJobs.list(p.id)
    t.equal(kept.length, MAX_EXPORT_JOBS_PER_PROJECT + 1, 'the newest finished ones, and the running one')
    t.ok(kept.some((x) => x.id === live.id), 'a running job is never dropped')
    await c.projects.delete(p.id)
    t.same(await c.exportJobs.list(p.id), [], 'gone with the project')
  })
}
