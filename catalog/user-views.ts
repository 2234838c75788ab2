// Per-user favorites and saved plot views (spec 1 access rule 9, issue 33): the metadata of a
// user, deleted with the user (and with the project they are in). A favorite names a datapoint
// (by its id: it goes when the datapoint goes); a plot view keeps its datapoints by identifier
// inside its spec (a view may name one created later), checked against the caller's TagAuths
// on every read. Records of both adapters (catalog/sqlite/user-views.ts, catalog/postgres/).

export interface Favorite { datapoint: number; dataPointID: string; created_at: number }

/** What a plot view shows (validated by its route): the datapoints with their units, the range, sampling. */
export interface PlotViewSpec {
  datapoints: { dataPointID: string; units?: string }[]
  /** A fixed range (RFC 3339), or `relative` (e.g. `24h`, `7d`: up to now). */
  start?: string
  end?: string
  relative?: string
  /** A sample rate (`15m`, `1D`), `auto`, or absent: raw. */
  samplerate?: string
  aggregate?: string
  units_system?: string
}

export interface PlotView { id: number; user_id: number; project_id: number; name: string; spec: PlotViewSpec; created_at: number; updated_at: number }

export interface PlotViewRow { id: number; user_id: number; project_id: number; name: string; spec: string; created_at: number; updated_at: number }

export const PLOT_VIEW_COLUMNS = 'id, user_id, project_id, name, spec, created_at, updated_at'

export const plotViewOf = (r: PlotViewRow): PlotView => ({ ...r, spec: JSON.parse(r.spec) as PlotViewSpec })

/** A user's plot views per project at most. */
export const MAX_PLOT_VIEWS_PER_PROJECT = 200
/** A user's favorites per project at most. */
export const MAX_FAVORITES_PER_PROJECT = 1000
