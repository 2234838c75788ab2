// `lintel project retention`: the operator reads or sets how long a project keeps its raw
// observations and each rollup level (issue 34 item 2; the company's own endpoint is
// PUT /v2/company/project/{id}/retention). A running server applies it within a minute.
import type { Catalog } from '../catalog/index.ts'
import { formatRetention, parseRetention, RETENTION_PARTS, type RetentionPart } from '../catalog/lifecycle.ts'

export const RETENTION_USAGE = `  project retention --id ID [--raw D] [--rollup-15m D] [--rollup-1h D] [--rollup-1d D]
      Shows, or sets, how long the project keeps raw observations and each rollup level. D is
      a whole number with s, m, h, d, w or y (365 days), e.g. 90d, or 'forever' (the default).
      At least one minute; a coarser level is kept at least as long as a finer one.`

/** The command-line option of each part. */
export const RETENTION_OPTIONS: Record<RetentionPart, string> = { raw: 'raw', rollup_15m: 'rollup-15m', rollup_1h: 'rollup-1h', rollup_1d: 'rollup-1d' }

export async function retentionCommand(catalog: Catalog, projectId: number, values: Record<string, unknown>, out: (s: string) => void): Promise<number> {
  const project = await catalog.projects.get(projectId)
  const r = await catalog.lifecycle.retention(project.id)
  let changed = false
  for (const part of RETENTION_PARTS) {
    const v = values[RETENTION_OPTIONS[part]]
    if (typeof v !== 'string') continue
    r[part] = parseRetention(part, v)
    changed = true
  }
  const now = changed ? await catalog.lifecycle.setRetention(project.id, r) : r
  out(`project ${project.id} keeps: ${RETENTION_PARTS.map((p) => `${p} ${formatRetention(now[p]) ?? 'forever'}`).join(', ')}\n`)
  return 0
}
