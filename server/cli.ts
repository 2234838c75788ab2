// The operator's command-line tool: companies and their first admin users are created,
// renamed and deleted here, never over HTTP (spec 1: companies are read-only for users).
// It works on the catalog in LINTEL_DATA_DIR; run it while the server runs or not (WAL; it
// never takes the server's lock). A directory without a catalog is refused unless --init is
// given, so a mistyped LINTEL_DATA_DIR does not silently create an empty installation.
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { openCatalog } from '../catalog/index.ts'
import { spaceKey } from '../catalog/files.ts'
import { dropSpaces } from '../engine/blobs/drop-spaces.ts'
import { CURRENCY_USAGE, runCurrency } from './cli-currency.ts'
import { LintelError } from '../core/errors.ts'
import { DEFAULT_MAX_DATAPOINTS } from '../catalog/datapoints.ts'
import { ConfigError, loadConfig } from './config.ts'
import { readMetricsSnapshot, SNAPSHOT_EVERY_MS } from './metrics-snapshot.ts'
import { adminEndpoints } from '../api/registry.ts'
import { QUOTA_USAGE, QuotaUsageError, quotaCommand } from './cli-quota.ts'
import { RETENTION_USAGE, retentionCommand } from './cli-retention.ts'

const USAGE = `Usage: lintel <command> [options] [--init]   (data directory: LINTEL_DATA_DIR, default ./var)
  --init: create the catalog if the data directory has none (otherwise such a directory is refused)

  company list
  company create --name NAME --admin-email EMAIL [--admin-password PW] [--description TEXT]
                 [--admin-first-name NAME] [--admin-last-name NAME]
      Creates the company, its admin role and a first user holding it.
      Without --admin-password a password is generated and printed once.
  company rename --id ID --name NAME [--description TEXT]
  company delete --id ID --yes
      Deletes the company with all its projects, users, roles and datapoints.
  admin create --company ID --email EMAIL [--password PW]
      Adds a further user holding the company's admin role.
  project list [--company ID]
  project set --id ID [--group NAME] [--handle NAME] [--hash-id-length 4..12] [--sampling-n N]
      The MQTT topic prefix <group>/<handle> of a project (handles are unique), the length
      of its hash identifiers and N of automatic sampling.
  project vdp --id ID (--enable | --disable)
      Switches virtual datapoints on or off for a project (new projects: LINTEL_VDP_DEFAULT).
  project setpoints --id ID [--enable | --disable] [--max-priority 1..16]
      Setpoint writing for a project (off for new projects) and its most urgent allowed
      priority (BACnet: 1 most urgent; default 8, the manual operator level).
  project quota --id ID [--datapoints N | --datapoints default]
      Shows, or sets, how many datapoints project ID may hold. Creating more on any ingest
      path (JSON, CSV, MQTT, META, virtual datapoints) is refused (HTTP 413; MQTT lines are
      dropped and counted). 'default' returns the project to the default quota.
${RETENTION_USAGE}
  quota default [--datapoints N]
      Shows, or sets, the quota of projects without their own (initially ${DEFAULT_MAX_DATAPOINTS}).
  mqtt create --project ID --username NAME [--password PW] [--rights read|write] [--description TEXT] [--edge]
      A broker account WITHOUT expiry (operator-issued; the HTTP API only makes short-lived ones).
      --edge designates it as the project's edge agent (write rights): only edge accounts may
      answer setpoints (SPTACK); answers of other accounts are dropped.
  mqtt edge --username NAME --enable | --disable
      Designates an existing account as an edge agent, or no longer; applies to its next answer.
  mqtt delete --username NAME
  metrics
      Counters of the whole running server (MQTT broker, ingest queue), from the snapshot it
      writes into the data directory every 5 s. Over HTTP a company sees only its own.
${CURRENCY_USAGE}

${QUOTA_USAGE}`

export async function runCli(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' }, description: { type: 'string' }, id: { type: 'string' }, company: { type: 'string' },
      email: { type: 'string' }, password: { type: 'string' }, 'admin-email': { type: 'string' },
      'admin-password': { type: 'string' }, 'admin-first-name': { type: 'string' }, 'admin-last-name': { type: 'string' },
      yes: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
      group: { type: 'string' }, handle: { type: 'string' }, 'hash-id-length': { type: 'string' }, 'sampling-n': { type: 'string' },
      project: { type: 'string' }, username: { type: 'string' }, rights: { type: 'string' },
      enable: { type: 'boolean' }, disable: { type: 'boolean' }, datapoints: { type: 'string' },
      init: { type: 'boolean' }, from: { type: 'string' }, 'max-priority': { type: 'string' },
      'file-size': { type: 'string' }, files: { type: 'string' }, space: { type: 'string' },
      edge: { type: 'boolean' },
      raw: { type: 'string' }, 'rollup-15m': { type: 'string' }, 'rollup-1h': { type: 'string' }, 'rollup-1d': { type: 'string' },
    },
  })
  const command = positionals.join(' ')
  if (values.help || command === '') { out(USAGE); return 0 }
  const need = (name: keyof typeof values): string => {
    const v = values[name]
    if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required for '${command}'`)
    return v
  }
  const intOf = (name: keyof typeof values): number => {
    const v = need(name)
    if (!/^[1-9]\d*$/.test(v)) throw new UsageError(`--${name} must be a positive integer, got '${v}'`)
    return Number(v)
  }
  const quotaOf = (v: string): number => {
    if (!/^(0|[1-9]\d{0,14})$/.test(v)) throw new UsageError(`--datapoints must be a non-negative integer or 'default', got '${v}'`)
    return Number(v)
  }
  const password = (given: string | undefined): { value: string; generated: boolean } => {
    if (given !== undefined && given.length < 8) throw new UsageError('passwords must be at least 8 characters')
    return given === undefined ? { value: randomBytes(15).toString('base64url'), generated: true } : { value: given, generated: false }
  }

  const config = loadConfig()
  if (command === 'metrics') return printMetrics(config.dataDir, out)
  if (config.catalog === 'sqlite' && !values.init && !existsSync(join(config.dataDir, 'catalog.db'))) {
    throw new UsageError(`no catalog in '${config.dataDir}' (LINTEL_DATA_DIR): start the server there first, point LINTEL_DATA_DIR at your data directory, or add --init to create an empty catalog`)
  }
  const catalog = await openCatalog(config, adminEndpoints)
  try {
    if (positionals[0] === 'currency') return await runCurrency(catalog, positionals.slice(1), values.from, out, (m) => new UsageError(m))
    switch (command) {
      case 'quota show':
      case 'quota set':
        return await quotaCommand(catalog, command === 'quota set' ? 'set' : 'show', values, out)
      case 'company list':
        for (const c of await catalog.companies.list()) out(`${c.id}\t${c.name}\t${c.description}\n`)
        return 0
      case 'company create': {
        const pw = password(values['admin-password'])
        const { company, user } = await catalog.createCompanyWithAdmin(need('name'), {
          email: need('admin-email'), password: pw.value,
          firstName: values['admin-first-name'], lastName: values['admin-last-name'],
        }, values.description ?? '')
        out(`created company ${company.id} '${company.name}' with admin user ${user.id} <${user.email}>\n`)
        if (pw.generated) out(`generated password (shown once): ${pw.value}\n`)
        return 0
      }
      case 'company rename': {
        const c = await catalog.companies.update(intOf('id'), { name: need('name'), description: values.description })
        out(`company ${c.id} is now '${c.name}'\n`)
        return 0
      }
      case 'company delete': {
        if (!values.yes) throw new UsageError('deleting a company removes all of its data: add --yes to confirm')
        const { company, projectIds } = await catalog.companies.delete(intOf('id'))
        out(`deleted company ${company.id} '${company.name}' with ${projectIds.length} project(s)\n`)
        // Its documents go now, so their links stop at once (the server's sweep is the fallback).
        if (config.blobs) {
          const spaces = [spaceKey({ kind: 'company', companyId: company.id }), ...projectIds.map((projectId) => spaceKey({ kind: 'project', companyId: company.id, projectId }))]
          await dropSpaces(config.blobs, spaces).then(
            () => out(`removed its documents (${spaces.length} file space(s))\n`),
            (err: Error) => out(`its documents were not removed now (${err.message}); the server's sweep removes them\n`))
        }
        return 0
      }
      case 'admin create': {
        const companyId = intOf('company')
        await catalog.companies.get(companyId)
        const pw = password(values.password)
        const user = await catalog.transaction(async (tx) => {
          const u = await tx.users.create(companyId, { email: need('email'), password: pw.value, firstName: 'Admin', lastName: 'User' })
          await tx.roles.assign(u.id, await tx.companies.adminRoleId(companyId))
          return u
        })
        out(`created admin user ${user.id} <${user.email}> in company ${companyId}\n`)
        if (pw.generated) out(`generated password (shown once): ${pw.value}\n`)
        return 0
      }
      case 'project list': {
        const companies = values.company === undefined ? await catalog.companies.list() : [await catalog.companies.get(intOf('company'))]
        for (const c of companies) {
          for (const p of await catalog.projects.listByCompany(c.id)) {
            const s = await catalog.projects.settings(p.id)
            out(`${p.id}\t${c.name}\t${p.name}\t${s.load_balancing_group}/${s.project_handle}\thash_id_length=${s.hash_id_length}\n`)
          }
        }
        return 0
      }
      case 'project set': {
        const optInt = (name: 'hash-id-length' | 'sampling-n') => (values[name] === undefined ? undefined : intOf(name))
        const s = await catalog.projects.setMqtt(intOf('id'), { group: values.group, handle: values.handle, hashIdLength: optInt('hash-id-length'), samplingN: optInt('sampling-n') })
        out(`project ${s.id}: topic prefix ${s.load_balancing_group}/${s.project_handle}, hash_id_length ${s.hash_id_length}, sampling N ${s.sampling_n}\n`)
        return 0
      }
      case 'project vdp': {
        if (values.enable === values.disable) throw new UsageError("give exactly one of --enable or --disable for 'project vdp'")
        const id = intOf('id')
        await catalog.projects.setVdpEnabled(id, values.enable === true)
        out(`virtual datapoints ${values.enable ? 'enabled' : 'disabled'} for project ${id}\n`)
        return 0
      }
      case 'project setpoints': {
        if (values.enable && values.disable) throw new UsageError("give at most one of --enable or --disable for 'project setpoints'")
        const id = intOf('id')
        await catalog.projects.get(id)
        const max = values['max-priority'] === undefined ? undefined : intOf('max-priority')
        if (max !== undefined && max > 16) throw new UsageError(`--max-priority must be from 1 (most urgent) to 16, got ${max}`)
        const enabled = values.enable ? true : values.disable ? false : undefined
        await catalog.setpoints.setSettings(id, { enabled, maxPriority: max })
        out(`setpoint writing of project ${id}: ${enabled === undefined ? 'unchanged' : enabled ? 'enabled' : 'disabled'}` +
          `${max === undefined ? '' : `, most urgent allowed priority ${max}`}\n`)
        return 0
      }
      case 'project quota': {
        const id = intOf('id')
        await catalog.projects.get(id)
        if (values.datapoints !== undefined) {
          const n = values.datapoints === 'default' ? null : quotaOf(values.datapoints)
          await catalog.datapoints.setQuota(id, n)
        }
        const q = await catalog.datapoints.quota(id)
        out(`project ${id}: ${q.used} datapoints, quota ${q.max}${q.own ? '' : ' (default)'}\n`)
        return 0
      }
      case 'project retention':
        return await retentionCommand(catalog, intOf('id'), values, out)
      case 'quota default': {
        if (values.datapoints !== undefined) await catalog.datapoints.setDefaultQuota(quotaOf(values.datapoints))
        out(`default datapoint quota of projects: ${await catalog.datapoints.defaultQuota()}\n`)
        return 0
      }
      case 'mqtt create': {
        const projectId = intOf('project')
        await catalog.projects.get(projectId)
        const rights = values.rights ?? 'read'
        if (rights !== 'read' && rights !== 'write') throw new UsageError(`--rights must be read or write, got '${rights}'`)
        if (values.edge && rights !== 'write') throw new UsageError('--edge needs --rights write: an edge agent publishes its answers')
        const pw = password(values.password)
        const a = await catalog.mqttAccounts.create(projectId, { username: need('username'), password: pw.value, rights, description: values.description, validUntil: null, edge: values.edge === true })
        const s = await catalog.projects.settings(projectId)
        out(`created MQTT account ${a.id} '${a.username}' (${a.rights}${a.edge ? ', edge agent' : ''}, no expiry) for ${s.load_balancing_group}/${s.project_handle}/#\n`)
        if (pw.generated) out(`generated password (shown once): ${pw.value}\n`)
        return 0
      }
      case 'mqtt edge': {
        if (values.enable === values.disable) throw new UsageError("'mqtt edge' needs exactly one of --enable or --disable")
        const username = need('username')
        if (values.enable && (await catalog.mqttAccounts.findValid(username))?.rights === 'read') throw new UsageError(`MQTT account '${username}' has read rights only: an edge agent needs write rights`)
        if (!await catalog.mqttAccounts.setEdge(username, values.enable === true)) throw new UsageError(`no MQTT account '${username}'`)
        out(`MQTT account '${username}' ${values.enable ? 'is now' : 'is no longer'} an edge agent: its setpoint answers ${values.enable ? 'count' : 'are dropped'}\n`)
        return 0
      }
      case 'mqtt delete':
        if (!await catalog.mqttAccounts.deleteByUsername(need('username'))) throw new UsageError(`no MQTT account '${values.username}'`)
        out(`deleted MQTT account '${values.username}' (a running broker ends its connections within a second)\n`)
        return 0
      default:
        throw new UsageError(`unknown command '${command}'\n\n${USAGE}`)
    }
  } finally {
    await catalog.close()
  }
}

export class UsageError extends Error {}

function printMetrics(dataDir: string, out: (s: string) => void): number {
  const snap = readMetricsSnapshot(dataDir)
  if (!snap) throw new UsageError(`no metrics in ${dataDir}: no server has run with this LINTEL_DATA_DIR`)
  const ageS = Math.round((Date.now() - Date.parse(snap.written_at)) / 1000)
  out(`metrics of the server with pid ${snap.pid}, written ${snap.written_at} (${ageS} s ago)\n`)
  if (ageS * 1000 > 3 * SNAPSHOT_EVERY_MS) out('note: the snapshot is old; the server may have stopped\n')
  for (const [name, value] of Object.entries(snap.metrics).sort(([a], [b]) => a.localeCompare(b))) out(`${name}\t${value}\n`)
  return 0
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    process.exitCode = await runCli(process.argv.slice(2))
  } catch (err) {
    if (err instanceof UsageError || err instanceof QuotaUsageError || err instanceof ConfigError || err instanceof LintelError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`lintel: ${(err as Error).message}\n`)
      process.exitCode = 2
    } else throw err
  }
}
