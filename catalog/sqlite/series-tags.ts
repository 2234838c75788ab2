// The SQLite repository of catalog/series-tags.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/series-tags.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import type { TagChange, TaggedObservation, TagRecordResult, TagRow, TagLimits } from '../series-tags.ts'

export class SeriesTags {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db) {
    this.sql = statements(db)
  }

  /** Records the tag sets of observations of one project, changes only, within the bounds. */
  async record(projectId: number, observations: readonly TaggedObservation[]): Promise<TagRecordResult> {
    return this.db.transaction(() => {
      const limits = this.limitsNow()
      const result = { stored: 0, unchanged: 0, overflow: 0 }
      let projectRows: number | undefined // counted only when a change must be stored
      const seriesRows = new Map<number, number>()
      for (const o of observations) {
        for (const { key, value } of o.tags) {
          const change = this.changeAt(o.series, key, o.time, value)
          if (change === 'none') { result.unchanged++; continue }
          if (change === 'insert') {
            projectRows ??= this.sql('SELECT COUNT(*) FROM series_tags WHERE project_id = ?').pluck().get(projectId) as number
            let n = seriesRows.get(o.series)
            if (n === undefined) seriesRows.set(o.series, n = this.sql('SELECT COUNT(*) FROM series_tags WHERE datapoint = ?').pluck().get(o.series) as number)
            if (n >= limits.perSeries || projectRows >= limits.perProject) { result.overflow++; continue }
            this.sql('INSERT INTO series_tags (datapoint, key, valid_from, value, project_id) VALUES (?, ?, ?, ?, ?)').run(o.series, key, o.time, value, projectId)
            seriesRows.set(o.series, n + 1)
            projectRows++
          } else {
            this.sql('UPDATE series_tags SET value = ? WHERE datapoint = ? AND key = ? AND valid_from = ?').run(value, o.series, key, o.time)
          }
          result.stored++
          const removed = this.dropRepeats(o.series, key, o.time)
          if (removed > 0) {
            seriesRows.set(o.series, seriesRows.get(o.series)! - removed)
            if (projectRows !== undefined) projectRows -= removed
          }
        }
      }
      return result
    })()
  }

  /** What storing `value` of `key` at `time` needs: nothing, a new row, or a changed row at that time. */
  private changeAt(series: number, key: string, time: number, value: string): 'none' | 'insert' | 'update' {
    const cur = this.sql('SELECT valid_from, value FROM series_tags WHERE datapoint = ? AND key = ? AND valid_from <= ? ORDER BY valid_from DESC LIMIT 1')
      .get(series, key, time) as { valid_from: number; value: string } | undefined
    if (cur?.value === value) return 'none'
    return cur?.valid_from === time ? 'update' : 'insert'
  }

  /**
   * After the row at `time` was written: removes it if the previous row has the same value
   * (an update made it redundant), and the next row if it now repeats it. Returns rows removed.
   */
  private dropRepeats(series: number, key: string, time: number): number {
    const near = (op: '<' | '>') => this.sql(`SELECT valid_from, value FROM series_tags WHERE datapoint = ? AND key = ? AND valid_from ${op} ?
      ORDER BY valid_from ${op === '<' ? 'DESC' : 'ASC'} LIMIT 1`).get(series, key, time) as { valid_from: number; value: string } | undefined
    const del = this.sql('DELETE FROM series_tags WHERE datapoint = ? AND key = ? AND valid_from = ?')
    const here = this.sql('SELECT value FROM series_tags WHERE datapoint = ? AND key = ? AND valid_from = ?').pluck().get(series, key, time) as string
    let removed = 0
    const next = near('>')
    if (next && next.value === here) { del.run(series, key, next.valid_from); removed++ }
    if (near('<')?.value === here) { del.run(series, key, time); removed++ }
    return removed
  }

  /** The tags of a series in force at `time` (µs). */
  async at(series: number, time: number): Promise<Record<string, string>> {
    const rows = this.sql(`SELECT key, value FROM series_tags t WHERE datapoint = ? AND valid_from = (
      SELECT MAX(valid_from) FROM series_tags WHERE datapoint = t.datapoint AND key = t.key AND valid_from <= ?) ORDER BY key`).all(series, time) as TagChange[]
    const out: Record<string, string> = Object.create(null)
    for (const r of rows) out[r.key] = r.value
    return out
  }

  /** Every stored change of a series, by key and time. */
  async history(series: number): Promise<TagRow[]> {
    return this.sql('SELECT key, value, valid_from FROM series_tags WHERE datapoint = ? ORDER BY key, valid_from').all(series) as TagRow[]
  }

  /** The bounds in force (operator settings). */
  async limits(): Promise<TagLimits> {
    return this.limitsNow()
  }

  /** Changes the bounds (operator tool, tests); rows already stored stay. */
  async setLimits(limits: Partial<TagLimits>): Promise<void> {
    const put = this.sql('UPDATE catalog_settings SET value = ? WHERE key = ?')
    if (limits.perSeries !== undefined) put.run(limits.perSeries, 'max_tag_changes_per_series')
    if (limits.perProject !== undefined) put.run(limits.perProject, 'max_tag_changes_per_project')
  }

  private limitsNow(): TagLimits {
    const get = (key: string) => this.sql('SELECT value FROM catalog_settings WHERE key = ?').pluck().get(key) as number
    return { perSeries: get('max_tag_changes_per_series'), perProject: get('max_tag_changes_per_project') }
  }
}
