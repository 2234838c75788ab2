// The SQLite repository of favorites and plot views (catalog/user-views.ts); the PostgreSQL
// twin is catalog/postgres/user-views.ts (the contract suite holds both).
import { NotFoundError } from '../../core/errors.ts'
import { statements, type Db } from './db.ts'
import { PLOT_VIEW_COLUMNS, plotViewOf, type Favorite, type PlotView, type PlotViewRow, type PlotViewSpec } from '../user-views.ts'

const FAVORITES = 'SELECT f.datapoint, d.datapoint_id AS dataPointID, f.created_at FROM favorites f JOIN datapoints d ON d.id = f.datapoint'

export class UserViews {
  private readonly sql: ReturnType<typeof statements>

  constructor (db: Db) {
    this.sql = statements(db)
  }

  addFavorite(userId: number, datapoint: number, now: number): Favorite {
    this.sql('INSERT INTO favorites (user_id, datapoint, created_at) VALUES (?, ?, ?) ON CONFLICT (user_id, datapoint) DO NOTHING').run(userId, datapoint, now)
    return this.sql(`${FAVORITES} WHERE f.user_id = ? AND f.datapoint = ?`).get(userId, datapoint) as Favorite
  }

  removeFavorite(userId: number, datapoint: number): boolean {
    return this.sql('DELETE FROM favorites WHERE user_id = ? AND datapoint = ?').run(userId, datapoint).changes > 0
  }

  favorites(userId: number, projectId: number): Favorite[] {
    return this.sql(`${FAVORITES} WHERE f.user_id = ? AND d.project_id = ? ORDER BY f.created_at, f.datapoint`).all(userId, projectId) as Favorite[]
  }

  countFavorites(userId: number, projectId: number): number {
    return (this.sql('SELECT count(*) AS n FROM favorites f JOIN datapoints d ON d.id = f.datapoint WHERE f.user_id = ? AND d.project_id = ?').get(userId, projectId) as { n: number }).n
  }

  createPlotView(userId: number, projectId: number, name: string, spec: PlotViewSpec, now: number): PlotView {
    const id = Number(this.sql('INSERT INTO plot_views (user_id, project_id, name, spec, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(userId, projectId, name, JSON.stringify(spec), now, now).lastInsertRowid)
    return this.byId(id)!
  }

  plotView(userId: number, projectId: number, id: number): PlotView | undefined {
    const row = this.sql(`SELECT ${PLOT_VIEW_COLUMNS} FROM plot_views WHERE id = ? AND user_id = ? AND project_id = ?`).get(id, userId, projectId) as PlotViewRow | undefined
    return row && plotViewOf(row)
  }

  plotViews(userId: number, projectId: number): PlotView[] {
    return (this.sql(`SELECT ${PLOT_VIEW_COLUMNS} FROM plot_views WHERE user_id = ? AND project_id = ? ORDER BY id`).all(userId, projectId) as PlotViewRow[]).map(plotViewOf)
  }

  countPlotViews(userId: number, projectId: number): number {
    return (this.sql('SELECT count(*) AS n FROM plot_views WHERE user_id = ? AND project_id = ?').get(userId, projectId) as { n: number }).n
  }

  updatePlotView(id: number, change: { name?: string; spec?: PlotViewSpec }, now: number): PlotView {
    const old = this.byId(id)
    if (!old) throw new NotFoundError(`Plot view ${id} not found`)
    this.sql('UPDATE plot_views SET name = ?, spec = ?, updated_at = ? WHERE id = ?').run(change.name ?? old.name, JSON.stringify(change.spec ?? old.spec), now, id)
    return this.byId(id)!
  }

  deletePlotView(id: number): boolean {
    return this.sql('DELETE FROM plot_views WHERE id = ?').run(id).changes > 0
  }

  private byId(id: number): PlotView | undefined {
    const row = this.sql(`SELECT ${PLOT_VIEW_COLUMNS} FROM plot_views WHERE id = ?`).get(id) as PlotViewRow | undefined
    return row && plotViewOf(row)
  }
}
