// The PostgreSQL repositories of component analytics (issue 12): mapped components
// (catalog/components-in-project.ts) and analysis instances, results and the weekly ledger
// (catalog/analytics.ts). Same behaviour as those (the contract suite holds both); queries,
// texts and row mappers are imported from there. The ledger's claim and completion are one
// transaction each; concurrent claimers of one week meet at its primary key (the second
// waits for the first's commit, then finds the row) and the completion locks the claim row.
import { ConflictError, NotFoundError } from '../../core/errors.ts'
import {
  INSERT_RESULT, instanceExistsText, LATEST_RESULTS, PRUNE_RESULTS, pruneValues, resultValues, SCHEDULED, STALE_WEEKS, toInstance, toResult, WEEKS,
  type InstanceRow, type NewResult, type ResultRow, type ScheduledInstance, type StaleWeek,
} from '../analytics.ts'
import {
  ATTRIBUTES_OF, componentNotFound, PINS_OF, PUT_ATTRIBUTE, PUT_PIN, toComponent, type ComponentRow, type PinMapping,
} from '../components-in-project.ts'
import type { AnalyticsPort, ComponentsInProjectPort } from '../port.ts'
import type { Sql } from './sql.ts'

export function componentsInProject(sql: Sql, now: () => number = Date.now): ComponentsInProjectPort {
  const findIn = async (q: Sql, id: number) => {
    const row = await q.one<ComponentRow>('SELECT * FROM components_in_project WHERE id = ?', id)
    return row && toComponent(row, await q.rows<PinMapping>(PINS_OF, id), await q.rows<{ attribute_id: number; value: string }>(ATTRIBUTES_OF, id))
  }
  const getIn = async (q: Sql, id: number) => (await findIn(q, id)) ?? Promise.reject(componentNotFound(id))
  /** Runs `statement` once per item, all in one unit, and returns the component. */
  const each = <T>(id: number, items: readonly T[], statement: string, values: (item: T) => unknown[]) => sql.atomic(async (q) => {
    for (const item of items) await q.run(statement, id, ...values(item))
    return getIn(q, id)
  })
  return {
    create: async (projectId, c) => getIn(sql, (await sql.value<number>('INSERT INTO components_in_project (project_id, component_id, display_name, tags, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id',
      projectId, c.component_id, c.display_name, JSON.stringify(c.tags), now()))!),
    find: (id) => findIn(sql, id),
    get: (id) => getIn(sql, id),
    listByProject: async (projectId) => Promise.all((await sql.rows<ComponentRow>('SELECT * FROM components_in_project WHERE project_id = ? ORDER BY id', projectId))
      .map(async (r) => toComponent(r, await sql.rows<PinMapping>(PINS_OF, r.id), await sql.rows<{ attribute_id: number; value: string }>(ATTRIBUTES_OF, r.id)))),
    update: async (id, f) => {
      const cur = await getIn(sql, id)
      await sql.run('UPDATE components_in_project SET display_name = ?, tags = ? WHERE id = ?', f.display_name ?? cur.display_name, JSON.stringify(f.tags ?? cur.tags), id)
      return getIn(sql, id)
    },
    remove: async (id) => { await sql.run('DELETE FROM components_in_project WHERE id = ?', id) },
    setPins: (id, pins) => each(id, pins, PUT_PIN, (p) => [p.pin_id, p.datapoint]),
    removePins: (id, pinIds) => each(id, pinIds, 'DELETE FROM component_pin_datapoints WHERE cip_id = ? AND pin_id = ?', (p) => [p]),
    setAttributes: (id, attributes) => each(id, attributes, PUT_ATTRIBUTE, (a) => [a.attribute_id, a.value]),
    removeAttributes: (id, attributeIds) => each(id, attributeIds, 'DELETE FROM component_attributes WHERE cip_id = ? AND attribute_id = ?', (a) => [a]),
  }
}

export function analytics(sql: Sql, now: () => number = Date.now): AnalyticsPort {
  const findInstance = async (id: number) => {
    const row = await sql.one<InstanceRow>('SELECT * FROM analysis_instances WHERE id = ?', id)
    return row && toInstance(row)
  }
  const instance = async (id: number) => (await findInstance(id)) ?? Promise.reject(new NotFoundError(`Analysis instance ${id} not found`))
  const addResult = async (q: Sql, instanceId: number, r: NewResult, keep?: number) => {
    const row = (await q.one<ResultRow>(`${INSERT_RESULT} RETURNING *`, ...resultValues(instanceId, r, now())))!
    await q.run(PRUNE_RESULTS, ...pruneValues(instanceId, keep))
    return toResult(row)
  }
  return {
    createInstance: async (projectId, i) => {
      const id = await sql.value<number>(`INSERT INTO analysis_instances (project_id, cip_id, function_id, name, description, enabled, weeks_from, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (function_id, cip_id) DO NOTHING RETURNING id`,
      projectId, i.componentinproject_id, i.analysisfunction_id, i.name, i.description, i.enabled ? 1 : 0, i.weeks_from, now())
      if (id === undefined) throw new ConflictError(instanceExistsText(i.componentinproject_id, i.analysisfunction_id))
      return instance(id)
    },
    findInstance,
    instance,
    instancesOfProject: async (projectId) => (await sql.rows<InstanceRow>('SELECT * FROM analysis_instances WHERE project_id = ? ORDER BY id', projectId)).map(toInstance),
    updateInstance: async (id, f) => {
      const cur = await instance(id)
      await sql.run('UPDATE analysis_instances SET name = ?, description = ?, enabled = ?, weeks_from = ? WHERE id = ?',
        f.name ?? cur.name, f.description ?? cur.description, (f.enabled ?? cur.enabled) ? 1 : 0, f.weeks_from ?? cur.weeks_from, id)
      return instance(id)
    },
    removeInstance: async (id) => { await sql.run('DELETE FROM analysis_instances WHERE id = ?', id) },
    addResult: (instanceId, r, keep) => sql.atomic((q) => addResult(q, instanceId, r, keep)),
    findResult: async (instanceId, resultId) => {
      const row = await sql.one<ResultRow>('SELECT * FROM analysis_results WHERE instance_id = ? AND result_id = ?', instanceId, resultId)
      return row && toResult(row)
    },
    results: async (instanceId) => (await sql.rows<ResultRow>('SELECT * FROM analysis_results WHERE instance_id = ? ORDER BY id', instanceId)).map(toResult),
    latestResults: async (projectId) => (await sql.rows<ResultRow>(LATEST_RESULTS, projectId)).map(toResult),
    scheduled: () => sql.rows<ScheduledInstance>(SCHEDULED),
    staleWeeks: (running, before) => sql.rows<StaleWeek>(STALE_WEEKS, running, before),
    claimWeek: (instanceId, weekStart, worker, running, staleBefore) => sql.atomic(async (q) => {
      const at = now()
      if (await q.run(`INSERT INTO analysis_weeks (instance_id, week_start, status_code, claimed_by, claimed_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (instance_id, week_start) DO NOTHING`, instanceId, weekStart, running, worker, at) === 1) return true
      return await q.run('UPDATE analysis_weeks SET claimed_by = ?, claimed_at = ? WHERE instance_id = ? AND week_start = ? AND status_code = ? AND claimed_at < ?',
        worker, at, instanceId, weekStart, running, staleBefore) === 1
    }),
    completeWeek: (instanceId, weekStart, worker, running, code, result, keep) => sql.atomic(async (q) => {
      // The row lock keeps a takeover from slipping in between the check and the write.
      if (!await q.one('SELECT 1 FROM analysis_weeks WHERE instance_id = ? AND week_start = ? AND claimed_by = ? AND status_code = ? FOR UPDATE', instanceId, weekStart, worker, running)) return undefined
      const stored = await addResult(q, instanceId, result, keep)
      await q.run('UPDATE analysis_weeks SET status_code = ?, result_id = ? WHERE instance_id = ? AND week_start = ?', code, stored.result_id, instanceId, weekStart)
      return stored
    }),
    weeks: (instanceId) => sql.rows(WEEKS, instanceId),
  }
}
