// `lintel quota show|set`: the operator fixes the quotas of company and project file spaces
// (spec 1 "Documents and quotas": quotas depend on the license and are fixed at ordering).
import type { Catalog } from '../catalog/index.ts'
import type { QuotaLimits, Space } from '../catalog/files.ts'

export const QUOTA_USAGE = `  quota show (--company ID | --project ID)
  quota set (--company ID | --project ID) [--file-size SIZE] [--files N] [--space SIZE]
      Limits of a file space: largest file, number of files, total bytes. SIZE is bytes or
      a number with K, M, G or T (powers of 1024), e.g. 500M or 20G.
`

const UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 }

export function parseSize(text: string, name: string): number {
  const m = /^(\d{1,16})\s*([KMGT]?)(?:i?B)?$/i.exec(text.trim())
  const n = m ? Number(m[1]) * UNITS[m[2].toUpperCase()] : NaN
  if (!Number.isSafeInteger(n)) throw new QuotaUsageError(`--${name} must be bytes or a number with K, M, G or T, got '${text}'`)
  return n
}

export class QuotaUsageError extends Error {}

interface QuotaArgs { company?: string; project?: string; 'file-size'?: string; files?: string; space?: string }

export async function quotaCommand(catalog: Catalog, sub: 'show' | 'set', v: QuotaArgs, out: (s: string) => void): Promise<number> {
  if ((v.company === undefined) === (v.project === undefined)) throw new QuotaUsageError(`give exactly one of --company or --project for 'quota ${sub}'`)
  const id = (text: string, name: string) => {
    if (!/^[1-9]\d*$/.test(text)) throw new QuotaUsageError(`--${name} must be a positive integer, got '${text}'`)
    return Number(text)
  }
  let space: Space
  if (v.company !== undefined) space = { kind: 'company', companyId: (await catalog.companies.get(id(v.company, 'company'))).id }
  else {
    const p = await catalog.projects.get(id(v.project!, 'project'))
    space = { kind: 'project', companyId: p.company_id, projectId: p.id }
  }
  const label = space.kind === 'company' ? `company ${space.companyId}` : `project ${space.projectId}`
  if (sub === 'set') {
    const limits: Partial<QuotaLimits> = {}
    if (v['file-size'] !== undefined) limits.file_size_bytes = parseSize(v['file-size'], 'file-size')
    if (v.space !== undefined) limits.space_bytes = parseSize(v.space, 'space')
    if (v.files !== undefined) {
      if (!/^\d+$/.test(v.files)) throw new QuotaUsageError(`--files must be a whole number, got '${v.files}'`)
      limits.files = Number(v.files)
    }
    if (Object.keys(limits).length === 0) throw new QuotaUsageError("give at least one of --file-size, --files, --space for 'quota set'")
    await catalog.files.setLimits(space, limits)
  }
  const q = await catalog.files.quota(space)
  out(`file space of ${label}: largest file ${q.quota_limits.file_size_bytes} bytes, ` +
    `${q.quota_used.files} of ${q.quota_limits.files} files, ${q.quota_used.space_bytes} of ${q.quota_limits.space_bytes} bytes used\n`)
  return 0
}
