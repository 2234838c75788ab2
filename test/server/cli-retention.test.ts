// `lintel project retention`: the operator's retention reaches the catalog (and so the
// company's GET /v2/company/project/{id}/retention and the sweeps); bad values are refused.
import t from 'tap'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { cliWithProject } from '../helpers/cli-project.ts'

t.test('show, set and refuse the retention of a project', async (t) => {
  const { dir, run, pid } = await cliWithProject(t)
  const id = String(pid)
  t.same(await run('project', 'retention', '--id', id), { code: 0, out: `project ${id} keeps: raw forever, rollup_15m forever, rollup_1h forever, rollup_1d forever\n` }, 'the default keeps everything')
  t.same(await run('project', 'retention', '--id', id, '--raw', '30d', '--rollup-15m', '52w', '--rollup-1h', '2y', '--rollup-1d', '2y'),
    { code: 0, out: `project ${id} keeps: raw 30d, rollup_15m 52w, rollup_1h 2y, rollup_1d 2y\n` })
  await t.rejects(run('project', 'retention', '--id', id, '--raw', '59s'), { message: 'Retention of raw must be at least 60 seconds (one minute), got 59 seconds' })
  await t.rejects(run('project', 'retention', '--id', id, '--rollup-1d', '1d'), { message: /rollup_1d \(86400 seconds\) must not be shorter than that of rollup_1h/ })
  await t.rejects(run('project', 'retention', '--id', id, '--raw', 'a month'), { message: /use a whole number followed by s, m, h, d, w or y/ })
  await t.rejects(run('project', 'retention', '--id', '999'), { message: 'Project 999 not found' })
  t.same(await run('project', 'retention', '--id', id, '--raw', 'forever', '--rollup-15m', 'forever', '--rollup-1h', 'forever', '--rollup-1d', 'forever'),
    { code: 0, out: `project ${id} keeps: raw forever, rollup_15m forever, rollup_1h forever, rollup_1d forever\n` })
  const after = Catalog.open(dir, adminEndpoints)
  t.teardown(() => after.close())
  t.same(await after.lifecycle.retentions(), [], 'nothing left to sweep')
})
