// The PostgreSQL repositories of the organisation: companies, users, tokens, roles, projects
// and MQTT accounts. Same behaviour as the SQLite ones in catalog/sqlite/*.ts (the contract suite
// holds both), written async over `Sql`; rules, texts and row mappers come from the port's
// modules (catalog/*.ts), shared with the SQLite adapter. Several statements that must hold together run in `sql.atomic`.
import { randomBytes } from 'node:crypto'
import { InvalidInputError, NotFoundError } from '../../core/errors.ts'
import { companyTaken } from '../companies.ts'
import { hashId } from '../hash-id.ts'
import { FULL_REACH, assertUsername, usernameTaken, withReach, grantOf, type MqttAccountChange, type MqttAccountInput, type MqttAccountRow, type MqttReach, type ReachRow } from '../mqtt-accounts.ts'
import { hashPassword } from '../passwords.ts'
import type { CompaniesPort, MqttAccountsPort, ProjectsPort, RolesPort, TokensPort, UsersPort } from '../port.ts'
import { assertMqttSettings, assertTimeZone, handleTaken, PROJECT_COLUMNS, SETTINGS, type MqttSettings } from '../projects.ts'
import { ALL_DATAPOINTS, ROLE_ENDPOINTS, ROLE_TAG_AUTHS, roleNameTaken, toRole, type RoleInput, type RoleRow, type TagAuthRow } from '../roles.ts'
import { digest, type IssuedToken } from '../tokens.ts'
import type { AdminEndpoints, Company, Project, ProjectSettings, Role, TagAuthInput, User, UserWithHash } from '../types.ts'
import { emailTaken, type NewUser } from '../users.ts'
import { conflictsAs, type Sql } from './sql.ts'

const companyNotFound = (id: number) => new NotFoundError(`Company ${id} not found`)

export function companies(sql: Sql): CompaniesPort {
  const findByName = (name: string) => sql.one<Company>('SELECT id, name, description FROM companies WHERE name = ?', name)
  const get = async (id: number) => (await sql.one<Company>('SELECT id, name, description FROM companies WHERE id = ?', id)) ?? Promise.reject(companyNotFound(id))
  return {
    create: (name, description = '') => conflictsAs(sql.atomic(async (q) => {
      if (await q.one('SELECT 1 FROM companies WHERE name = ?', name)) throw companyTaken(name)
      const id = (await q.value<number>('INSERT INTO companies (name, description, created_at) VALUES (?, ?, ?) RETURNING id', name, description, Date.now()))!
      // Rule 6: every company gets an `admin` role with all permissions of its scope.
      await q.run('INSERT INTO roles (company_id, project_id, name, description, is_admin) VALUES (?, NULL, ?, ?, 1)', id, 'admin', 'All permissions of the company')
      return { id, name, description }
    }), { companies_name_key: () => companyTaken(name) }),
    get,
    findByName,
    list: () => sql.rows<Company>('SELECT id, name, description FROM companies ORDER BY id'),
    update: async (id, fields) => {
      const current = await get(id)
      const name = fields.name ?? current.name
      const description = fields.description ?? current.description
      if (name !== current.name && await findByName(name)) throw companyTaken(name)
      await conflictsAs(sql.run('UPDATE companies SET name = ?, description = ? WHERE id = ?', name, description, id), { companies_name_key: () => companyTaken(name) })
      return { id, name, description }
    },
    delete: async (id) => {
      const company = await get(id)
      const projectIds = (await sql.rows<{ id: number }>('SELECT id FROM projects WHERE company_id = ? ORDER BY id', id)).map((r) => r.id)
      await sql.run('DELETE FROM companies WHERE id = ?', id)
      return { company, projectIds }
    },
    adminRoleId: async (companyId) => (await sql.value<number>('SELECT id FROM roles WHERE company_id = ? AND project_id IS NULL AND is_admin = 1', companyId))!,
  }
}

const USER = 'id, company_id, email, first_name AS "firstName", last_name AS "lastName"'

export function users(sql: Sql): UsersPort {
  const find = (id: number) => sql.one<User>(`SELECT ${USER} FROM users WHERE id = ?`, id)
  const get = async (id: number) => (await find(id)) ?? Promise.reject(new NotFoundError(`User ${id} not found`))
  return {
    create: async (companyId, u) => {
      await assertEmailFree(sql, u.email)
      const id = (await conflictsAs(sql.value<number>('INSERT INTO users (company_id, email, first_name, last_name, password_hash, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
        companyId, u.email, u.firstName, u.lastName, hashPassword(u.password), Date.now()), { users_email: () => emailTaken(u.email) }))!
      return get(id)
    },
    get,
    findWithHash: (id) => sql.one<UserWithHash>(`SELECT ${USER}, password_hash FROM users WHERE id = ?`, id),
    findByEmailWithHash: (email) => sql.one<UserWithHash>(`SELECT ${USER}, password_hash FROM users WHERE lower(email) = lower(?)`, email),
    listByCompany: (companyId) => sql.rows<User>(`SELECT ${USER} FROM users WHERE company_id = ? ORDER BY id`, companyId),
    getInCompany: async (id, companyId) =>
      (await sql.one<User>(`SELECT ${USER} FROM users WHERE id = ? AND company_id = ?`, id, companyId)) ?? Promise.reject(new NotFoundError(`User ${id} not found`)),
    update: (id, f: Partial<NewUser>) => sql.atomic(async (q) => {
      const cur = await users(q).get(id)
      if (f.email !== undefined && f.email.toLowerCase() !== cur.email.toLowerCase()) await assertEmailFree(q, f.email)
      await conflictsAs(q.run('UPDATE users SET email = ?, first_name = ?, last_name = ? WHERE id = ?', f.email ?? cur.email, f.firstName ?? cur.firstName, f.lastName ?? cur.lastName, id),
        { users_email: () => emailTaken(f.email!) })
      if (f.password !== undefined) {
        await q.run('UPDATE users SET password_hash = ? WHERE id = ?', hashPassword(f.password), id)
        await q.run('DELETE FROM tokens WHERE user_id = ?', id) // a new password ends the sessions of the old one
      }
      return users(q).get(id)
    }),
    delete: async (id) => {
      const u = await get(id)
      await sql.run('DELETE FROM users WHERE id = ?', id)
      return u
    },
  }
}

async function assertEmailFree(q: Sql, email: string): Promise<void> {
  if (await q.one('SELECT 1 FROM users WHERE lower(email) = lower(?)', email)) throw emailTaken(email)
}

export function tokens(sql: Sql, now: () => number = Date.now): TokensPort {
  return {
    issue: async (userId, ttlSeconds): Promise<IssuedToken> => {
      const token = 'lt_' + randomBytes(32).toString('base64url')
      const expiresAt = now() + ttlSeconds * 1000
      await sql.run('DELETE FROM tokens WHERE expires_at <= ?', now())
      await sql.run('INSERT INTO tokens (token_hash, user_id, expires_at) VALUES (?, ?, ?)', digest(token), userId, expiresAt)
      return { access_token: token, token_type: 'Bearer', expires_in: ttlSeconds, expires_at: new Date(expiresAt).toISOString() }
    },
    verify: async (token) => {
      const row = await sql.one<{ user_id: number; expires_at: number }>('SELECT user_id, expires_at FROM tokens WHERE token_hash = ?', digest(token))
      return !row || row.expires_at <= now() ? undefined : row.user_id
    },
    revoke: async (token) => (await sql.run('DELETE FROM tokens WHERE token_hash = ?', digest(token))) > 0,
    countOfUser: async (userId) => (await sql.value<number>('SELECT count(*) FROM tokens WHERE user_id = ?', userId))!,
  }
}

export function roles(sql: Sql, adminEndpoints: AdminEndpoints): RolesPort {
  const toRoleOf = async (r: RoleRow): Promise<Role> => {
    const endpoints = r.is_admin ? [] : (await sql.rows<{ endpoint: number }>(ROLE_ENDPOINTS, r.id)).map((e) => e.endpoint)
    return toRole(r, adminEndpoints, endpoints, await sql.rows<TagAuthRow>(ROLE_TAG_AUTHS, r.id))
  }
  const toRoles = (rows: RoleRow[]) => Promise.all(rows.map(toRoleOf))
  const rowIn = async (q: Sql, id: number) => (await q.one<RoleRow>('SELECT * FROM roles WHERE id = ?', id)) ?? Promise.reject(new NotFoundError(`Role ${id} not found`))
  const row = (id: number) => rowIn(sql, id)
  const get = async (id: number) => toRoleOf(await row(id))
  const assertNotAdmin = (r: RoleRow) => { if (r.is_admin) throw new InvalidInputError('The admin role cannot be changed or deleted') }
  const assertNameFree = async (q: Sql, companyId: number, projectId: number | null, name: string) => {
    if (await q.one('SELECT 1 FROM roles WHERE company_id = ? AND COALESCE(project_id, 0) = ? AND name = ?', companyId, projectId ?? 0, name)) {
      throw roleNameTaken(name)
    }
  }
  const setEndpoints = async (q: Sql, roleId: number, endpoints: number[]) => {
    await q.run('DELETE FROM role_endpoints WHERE role_id = ?', roleId)
    if (endpoints.length > 0) await q.run('INSERT INTO role_endpoints (role_id, endpoint) SELECT ?, unnest(?::int[]) ON CONFLICT DO NOTHING', roleId, [...new Set(endpoints)])
  }
  const insertTagAuth = (q: Sql, roleId: number, t: TagAuthInput) =>
    q.run('INSERT INTO tag_auths (role_id, key, value, read, write) VALUES (?, ?, ?, ?, ?)', roleId, t.key, t.value, t.read ? 1 : 0, t.write ? 1 : 0)
  return {
    create: (companyId, projectId, r: RoleInput, isAdmin = false) => sql.atomic(async (q) => {
      await assertNameFree(q, companyId, projectId, r.name)
      const id = (await conflictsAs(q.value<number>('INSERT INTO roles (company_id, project_id, name, description, is_admin) VALUES (?, ?, ?, ?, ?) RETURNING id',
        companyId, projectId, r.name, r.description ?? '', isAdmin ? 1 : 0), { roles_name: () => roleNameTaken(r.name) }))!
      await setEndpoints(q, id, r.authed_endpoints ?? [])
      for (const t of r.authed_tags ?? []) await insertTagAuth(q, id, t)
      return roles(q, adminEndpoints).get(id)
    }),
    get,
    getScoped: async (id, companyId, projectId) => {
      const r = await sql.one<RoleRow>('SELECT * FROM roles WHERE id = ? AND company_id = ?', id, companyId)
      if (!r || r.project_id !== projectId) throw new NotFoundError(`Role ${id} not found`)
      return toRoleOf(r)
    },
    companyOf: async (id) => (await row(id)).company_id,
    listCompanyRoles: async (companyId) => toRoles(await sql.rows<RoleRow>('SELECT * FROM roles WHERE company_id = ? AND project_id IS NULL ORDER BY id', companyId)),
    listProjectRoles: async (projectId) => toRoles(await sql.rows<RoleRow>('SELECT * FROM roles WHERE project_id = ? ORDER BY id', projectId)),
    rolesOfUser: async (userId) => toRoles(await sql.rows<RoleRow>('SELECT r.* FROM roles r JOIN user_roles ur ON ur.role_id = r.id WHERE ur.user_id = ? ORDER BY r.id', userId)),
    update: (id, f) => sql.atomic(async (q) => {
      const r = await rowIn(q, id)
      assertNotAdmin(r)
      if (f.name !== undefined && f.name !== r.name) await assertNameFree(q, r.company_id, r.project_id, f.name)
      await conflictsAs(q.run('UPDATE roles SET name = ?, description = ? WHERE id = ?', f.name ?? r.name, f.description ?? r.description, id), { roles_name: () => roleNameTaken(f.name!) })
      if (f.authed_endpoints) await setEndpoints(q, id, f.authed_endpoints)
      if (f.authed_tags) {
        await q.run('DELETE FROM tag_auths WHERE role_id = ?', id)
        for (const t of f.authed_tags) await insertTagAuth(q, id, t)
      }
      return roles(q, adminEndpoints).get(id)
    }),
    delete: async (id) => {
      const r = await row(id)
      const role = await toRoleOf(r)
      assertNotAdmin(r)
      await sql.run('DELETE FROM roles WHERE id = ?', id)
      return role
    },
    addTagAuth: async (roleId, t) => {
      assertNotAdmin(await row(roleId))
      await insertTagAuth(sql, roleId, t)
      return get(roleId)
    },
    removeTagAuth: async (roleId, tagAuthId) => {
      assertNotAdmin(await row(roleId))
      if (await sql.run('DELETE FROM tag_auths WHERE id = ? AND role_id = ?', tagAuthId, roleId) === 0) throw new NotFoundError(`TagAuth ${tagAuthId} not found in role ${roleId}`)
      return get(roleId)
    },
    assign: async (userId, roleId) => { await sql.run('INSERT INTO user_roles (user_id, role_id) VALUES (?, ?) ON CONFLICT DO NOTHING', userId, roleId) },
    unassign: async (userId, roleId) => {
      if (await sql.run('DELETE FROM user_roles WHERE user_id = ? AND role_id = ?', userId, roleId) === 0) throw new NotFoundError(`User ${userId} does not hold role ${roleId}`)
    },
  }
}

export function projects(sql: Sql, adminEndpoints: AdminEndpoints, vdpEnabledByDefault: boolean): ProjectsPort {
  const notFound = (id: number) => new NotFoundError(`Project ${id} not found`)
  const get = async (id: number) => (await sql.one<Project>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ?`, id)) ?? Promise.reject(notFound(id))
  const settings = async (id: number) => (await sql.one<ProjectSettings>(`SELECT ${SETTINGS} FROM projects WHERE id = ?`, id)) ?? Promise.reject(notFound(id))
  return {
    create: (companyId, f, creatorUserId) => sql.atomic(async (q) => {
      const id = (await q.value<number>('INSERT INTO projects (company_id, name, description, created_at) VALUES (?, ?, ?, ?) RETURNING id',
        companyId, f.name, f.description ?? '', Date.now()))!
      // Default topic handle; unique because the id is. The operator may change it (CLI).
      await q.run('UPDATE projects SET project_handle = ?, vdp_enabled = ? WHERE id = ?', `p${id}`, vdpEnabledByDefault ? 1 : 0, id)
      const r = roles(q, adminEndpoints)
      const role = await r.create(companyId, id, { name: 'admin', description: 'All permissions of the project', authed_tags: [ALL_DATAPOINTS] }, true)
      if (creatorUserId !== null) await r.assign(creatorUserId, role.id)
      return { project: await projects(q, adminEndpoints, vdpEnabledByDefault).get(id), role }
    }),
    get,
    getInCompany: async (id, companyId) =>
      (await sql.one<Project>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ? AND company_id = ?`, id, companyId)) ?? Promise.reject(notFound(id)),
    settings,
    findByTopic: (group, handle) => sql.one<ProjectSettings>(`SELECT ${SETTINGS} FROM projects WHERE project_handle = ? AND load_balancing_group = ?`, handle, group),
    vdpEnabled: async (id) => (await sql.value<number>('SELECT vdp_enabled FROM projects WHERE id = ?', id)) === 1,
    setVdpEnabled: async (id, enabled) => {
      if (await sql.run('UPDATE projects SET vdp_enabled = ? WHERE id = ?', enabled ? 1 : 0, id) === 0) throw notFound(id)
    },
    setMqtt: async (id, f: MqttSettings) => {
      const cur = await settings(id)
      assertMqttSettings(f)
      if (f.handle !== undefined && f.handle !== cur.project_handle && await sql.one('SELECT 1 FROM projects WHERE project_handle = ?', f.handle)) {
        throw handleTaken(f.handle)
      }
      await conflictsAs(sql.atomic(async (q) => {
        await q.run('UPDATE projects SET load_balancing_group = ?, project_handle = ?, hash_id_length = ?, sampling_n = ? WHERE id = ?',
          f.group ?? cur.load_balancing_group, f.handle ?? cur.project_handle, f.hashIdLength ?? cur.hash_id_length, f.samplingN ?? cur.sampling_n, id)
        if (f.hashIdLength !== undefined && f.hashIdLength !== cur.hash_id_length) {
          for (const dp of await q.rows<{ id: number; datapoint_id: string }>('SELECT id, datapoint_id FROM datapoints WHERE project_id = ?', id)) {
            await q.run('UPDATE datapoints SET hash_id = ? WHERE id = ?', hashId(dp.datapoint_id, f.hashIdLength), dp.id)
          }
        }
      }), { projects_project_handle_key: () => handleTaken(f.handle!) })
      return settings(id)
    },
    listByCompany: (companyId) => sql.rows<Project>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE company_id = ? ORDER BY id`, companyId),
    listByIds: async (ids) => (ids.length === 0 ? [] : sql.rows<Project>(`SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ANY(?::bigint[]) ORDER BY id`, ids)),
    update: async (id, f) => {
      const cur = await settings(id)
      assertTimeZone(f.time_zone)
      await sql.run('UPDATE projects SET name = ?, description = ?, time_zone = ? WHERE id = ?', f.name ?? cur.name, f.description ?? cur.description, f.time_zone ?? cur.time_zone, id)
      return get(id)
    },
    delete: async (id) => {
      const p = await get(id)
      await sql.run('DELETE FROM projects WHERE id = ?', id)
      return p
    },
  }
}

export function mqttAccounts(sql: Sql, now: () => number = Date.now): MqttAccountsPort {
  const VALID = '(valid_until IS NULL OR valid_until > ?)'
  const get = async (q: Sql, projectId: number, id: number) =>
    (await q.one<MqttAccountRow>(`SELECT * FROM mqtt_accounts WHERE id = ? AND project_id = ? AND ${VALID}`, id, projectId, now())) ??
      Promise.reject(new NotFoundError(`MQTT account ${id} not found`))
  const removeExpired = async (q: Sql) =>
    (await q.rows<{ username: string }>('DELETE FROM mqtt_accounts WHERE valid_until IS NOT NULL AND valid_until <= ? RETURNING username', now())).map((r) => r.username).sort()
  const putReach = (q: Sql, id: number, reach: MqttReach) => q.run(`INSERT INTO mqtt_account_reach (account_id, session_scope, write_filter, read_filter) VALUES (?, ?, ?, ?)
    ON CONFLICT (account_id) DO UPDATE SET write_filter = excluded.write_filter, read_filter = excluded.read_filter`,
  id, randomBytes(12).toString('hex'), JSON.stringify(reach.write), JSON.stringify(reach.read))
  return {
    create: (projectId, a: MqttAccountInput) => conflictsAs(sql.atomic(async (q) => {
      assertUsername(a.username)
      await removeExpired(q) // an expired account's username is free again
      if (await q.one('SELECT 1 FROM mqtt_accounts WHERE username = ?', a.username)) throw usernameTaken(a.username)
      const id = (await q.value<number>('INSERT INTO mqtt_accounts (project_id, username, password_hash, rights, description, valid_until, edge) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id',
        projectId, a.username, hashPassword(a.password), a.rights ?? 'read', a.description ?? '', a.validUntil, a.edge ? 1 : 0))!
      await putReach(q, id, a.reach ?? FULL_REACH)
      return get(q, projectId, id)
    }), { mqtt_accounts_username_key: () => usernameTaken(a.username) }),
    get: (projectId, id) => get(sql, projectId, id),
    list: (projectId) => sql.rows<MqttAccountRow>(`SELECT * FROM mqtt_accounts WHERE project_id = ? AND ${VALID} ORDER BY id`, projectId, now()),
    findValid: async (username) => {
      const row = await sql.one<MqttAccountRow & ReachRow>(`SELECT a.*, r.session_scope, r.write_filter, r.read_filter FROM mqtt_accounts a
        LEFT JOIN mqtt_account_reach r ON r.account_id = a.id WHERE a.username = ? AND (a.valid_until IS NULL OR a.valid_until > ?)`, username, now())
      return row && withReach(row)
    },
    update: (projectId, id, f: MqttAccountChange) => sql.atomic(async (q) => {
      const cur = await get(q, projectId, id)
      await q.run('UPDATE mqtt_accounts SET password_hash = ?, rights = ?, description = ?, valid_until = ?, edge = ? WHERE id = ?',
        f.password === undefined ? cur.password_hash : hashPassword(f.password), f.rights ?? cur.rights, f.description ?? cur.description,
        f.validUntil === undefined ? cur.valid_until : f.validUntil, f.edge === undefined ? cur.edge : (f.edge ? 1 : 0), id)
      if (f.reach) await putReach(q, id, f.reach)
      return get(q, projectId, id)
    }),
    delete: async (projectId, id) => {
      const row = await get(sql, projectId, id)
      await sql.run('DELETE FROM mqtt_accounts WHERE id = ?', id)
      return row
    },
    setEdge: async (username, edge) => (await sql.run('UPDATE mqtt_accounts SET edge = ? WHERE username = ?', edge ? 1 : 0, username)) > 0,
    deleteByUsername: async (username) => (await sql.run('DELETE FROM mqtt_accounts WHERE username = ?', username)) > 0,
    removeExpired: () => removeExpired(sql),
    validById: async () => new Map((await sql.rows<MqttAccountRow & ReachRow>(`SELECT a.id, a.valid_until, a.password_hash, a.rights, a.edge, r.write_filter, r.read_filter FROM mqtt_accounts a
      LEFT JOIN mqtt_account_reach r ON r.account_id = a.id WHERE (a.valid_until IS NULL OR a.valid_until > ?)`, now()))
      .map((r) => [r.id, { validUntil: r.valid_until, grant: grantOf(r) }])),
  }
}
