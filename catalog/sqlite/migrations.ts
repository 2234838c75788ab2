// Versioned schema migrations of the catalog. Each entry runs once, in order, inside a
// transaction; PRAGMA user_version records the last applied version. Append, never edit.
// An entry is SQL text, or a function for rebuilds of tables: functions run with foreign
// keys OFF and a foreign_key_check before COMMIT (catalog/sqlite/db.ts, migrate()).
import type Database from 'better-sqlite3'

export type Migration = string | ((db: Database.Database) => void)

/**
 * Rebuilds `table` with `id INTEGER PRIMARY KEY AUTOINCREMENT`, keeping every row, column
 * (also columns other migrations added), index and trigger. Only under foreign keys OFF:
 * children keep their rows and their REFERENCES by name reach the new table.
 */
export function addAutoincrement(db: Database.Database, table: string): void {
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) as string | undefined
  if (sql === undefined || /\bAUTOINCREMENT\b/i.test(sql)) return
  const tmp = `${table}__rebuild`
  const create = sql
    .replace(/^CREATE TABLE\s+("?)[A-Za-z_]+\1/i, `CREATE TABLE "${tmp}"`)
    .replace(/\bid\s+INTEGER\s+PRIMARY\s+KEY\b/i, 'id INTEGER PRIMARY KEY AUTOINCREMENT')
  if (!create.includes('AUTOINCREMENT') || !create.includes(tmp)) throw new Error(`cannot rebuild table ${table}: unexpected definition ${sql}`)
  const extras = db.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL").pluck().all(table) as string[]
  db.exec(create)
  db.exec(`INSERT INTO "${tmp}" SELECT * FROM "${table}"`)
  db.exec(`DROP TABLE "${table}"`)
  db.exec(`ALTER TABLE "${tmp}" RENAME TO "${table}"`)
  for (const x of extras) db.exec(x)
}

export const migrations: readonly Migration[] = [
  // 1: organisation, RBAC, datapoints and tags, bearer tokens
  `
  CREATE TABLE companies (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL
  );
  CREATE TABLE projects (
    id INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    hash_id_length INTEGER NOT NULL DEFAULT 8 CHECK (hash_id_length BETWEEN 4 AND 12),
    sampling_n INTEGER NOT NULL DEFAULT 200 CHECK (sampling_n > 0),
    created_at INTEGER NOT NULL
  );
  CREATE INDEX projects_company ON projects(company_id);
  CREATE TABLE users (
    id INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    email TEXT NOT NULL UNIQUE COLLATE NOCASE,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX users_company ON users(company_id);
  CREATE TABLE roles (
    id INTEGER PRIMARY KEY,
    company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    is_admin INTEGER NOT NULL DEFAULT 0
  );
  CREATE UNIQUE INDEX roles_name ON roles(company_id, IFNULL(project_id, 0), name);
  CREATE INDEX roles_project ON roles(project_id);
  CREATE TABLE role_endpoints (
    role_id INTEGER NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
    endpoint INTEGER NOT NULL,
    PRIMARY KEY (role_id, endpoint)
  ) WITHOUT ROWID;
  CREATE TABLE tag_auths (
    id INTEGER PRIMARY KEY,
    role_id INTEGER NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    read INTEGER NOT NULL,
    write INTEGER NOT NULL
  );
  CREATE INDEX tag_auths_role ON tag_auths(role_id);
  CREATE TABLE user_roles (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role_id INTEGER NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, role_id)
  ) WITHOUT ROWID;
  CREATE INDEX user_roles_role ON user_roles(role_id);
  CREATE TABLE datapoints (
    id INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    datapoint_id TEXT NOT NULL,
    hash_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (project_id, datapoint_id)
  );
  CREATE INDEX datapoints_hash ON datapoints(project_id, hash_id);
  CREATE TABLE tags (
    datapoint INTEGER NOT NULL REFERENCES datapoints(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (datapoint, key)
  ) WITHOUT ROWID;
  CREATE TABLE tokens (
    token_hash TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX tokens_user ON tokens(user_id);
  `,
  // 2: MQTT: topic prefix and hash-id length of projects, short-lived broker accounts,
  //    devices and the source of every tag association (spec 3, "MQTT broker interface")
  `
  ALTER TABLE projects ADD COLUMN load_balancing_group TEXT NOT NULL DEFAULT 'lintel';
  ALTER TABLE projects ADD COLUMN project_handle TEXT;
  UPDATE projects SET project_handle = 'p' || id;
  CREATE UNIQUE INDEX projects_handle ON projects(project_handle);
  CREATE TABLE mqtt_accounts (
    id INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    username TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    rights TEXT NOT NULL CHECK (rights IN ('read', 'write')),
    description TEXT NOT NULL DEFAULT '',
    valid_until INTEGER
  );
  CREATE INDEX mqtt_accounts_project ON mqtt_accounts(project_id);
  CREATE INDEX mqtt_accounts_expiry ON mqtt_accounts(valid_until) WHERE valid_until IS NOT NULL;
  ALTER TABLE tags ADD COLUMN source TEXT;
  CREATE TABLE devices (
    id INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    device_id TEXT NOT NULL,
    UNIQUE (project_id, device_id)
  );
  CREATE TABLE device_tags (
    device INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    source TEXT,
    PRIMARY KEY (device, key)
  ) WITHOUT ROWID;
  CREATE TABLE device_datapoints (
    device INTEGER NOT NULL REFERENCES devices(id) ON DELETE CASCADE,
    datapoint INTEGER NOT NULL REFERENCES datapoints(id) ON DELETE CASCADE,
    PRIMARY KEY (device, datapoint)
  ) WITHOUT ROWID;
  `,
  // 3: virtual datapoints (spec 2): definitions, their status and status-change log, and the
  //    per-project switch that enables them
  `
  ALTER TABLE projects ADD COLUMN vdp_enabled INTEGER NOT NULL DEFAULT 1;
  CREATE TABLE virtual_datapoints (
    id INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    datapoint_id TEXT NOT NULL,
    type TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    pins TEXT NOT NULL,
    parameters TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (project_id, datapoint_id)
  );
  CREATE TABLE vdp_logs (
    seq INTEGER PRIMARY KEY,
    vdp INTEGER NOT NULL REFERENCES virtual_datapoints(id) ON DELETE CASCADE,
    ts TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    message TEXT NOT NULL
  );
  CREATE INDEX vdp_logs_vdp ON vdp_logs(vdp, seq);
  `,
  // 4: ids are never reused (issue 9; DESIGN.md "ids"): every table whose ids users see gets
  //    AUTOINCREMENT (SQLite otherwise hands out max(id) + 1 again after the newest row is
  //    deleted: a new project got a deleted project's id and its virtual datapoint's output).
  //    Datapoint quotas per project: the operator's limit (NULL = the catalog-wide default in
  //    catalog_settings), a count kept by triggers, and a trigger that refuses any insert
  //    beyond the limit whatever path makes it (the ingest paths check first, with a clear 413).
  (db) => {
    for (const table of ['companies', 'projects', 'users', 'roles', 'tag_auths', 'datapoints', 'mqtt_accounts', 'virtual_datapoints']) {
      addAutoincrement(db, table)
    }
    db.exec(`
    -- Pages of a project's datapoints in id order (GET /v2/project/{id}) without a sort.
    CREATE INDEX datapoints_project ON datapoints(project_id);
    CREATE TABLE catalog_settings (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
    INSERT INTO catalog_settings (key, value) VALUES ('max_datapoints_per_project', 100000);
    CREATE TABLE project_limits (
      project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
      max_datapoints INTEGER CHECK (max_datapoints IS NULL OR max_datapoints >= 0),
      datapoints INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO project_limits (project_id, datapoints)
      SELECT p.id, (SELECT count(*) FROM datapoints d WHERE d.project_id = p.id) FROM projects p;
    CREATE TRIGGER projects_limits AFTER INSERT ON projects BEGIN
      INSERT INTO project_limits (project_id) VALUES (NEW.id);
    END;
    CREATE TRIGGER datapoints_quota BEFORE INSERT ON datapoints
      WHEN (SELECT l.datapoints >= COALESCE(l.max_datapoints, (SELECT value FROM catalog_settings WHERE key = 'max_datapoints_per_project'))
              FROM project_limits l WHERE l.project_id = NEW.project_id)
    BEGIN
      SELECT RAISE(ABORT, 'the datapoint quota of the project is reached');
    END;
    CREATE TRIGGER datapoints_count_up AFTER INSERT ON datapoints BEGIN
      UPDATE project_limits SET datapoints = datapoints + 1 WHERE project_id = NEW.project_id;
    END;
    CREATE TRIGGER datapoints_count_down AFTER DELETE ON datapoints BEGIN
      UPDATE project_limits SET datapoints = datapoints - 1 WHERE project_id = OLD.project_id;
    END;
    `)
  },
  // 5: MQTT accounts carry their creator's reach (issue 9, DESIGN.md "MQTT accounts"): the
  //    datapoint filters (JSON {all, auths}) of the ingest (write) and read endpoints, and a
  //    random session scope that prefixes the account's client ids, so sessions of a deleted
  //    account can never be inherited by a later one. A separate table, so that mqtt_accounts
  //    itself may be rebuilt. Existing accounts keep the full reach they had (the short-lived
  //    ones expire within 2 hours).
  `
  CREATE TABLE mqtt_account_reach (
    account_id INTEGER PRIMARY KEY REFERENCES mqtt_accounts(id) ON DELETE CASCADE,
    session_scope TEXT NOT NULL UNIQUE,
    write_filter TEXT NOT NULL,
    read_filter TEXT NOT NULL
  );
  INSERT INTO mqtt_account_reach (account_id, session_scope, write_filter, read_filter)
    SELECT id, lower(hex(randomblob(12))), '{"all":true,"auths":[]}', '{"all":true,"auths":[]}' FROM mqtt_accounts;
  `,
  // 6: exchange rates of currency conversion (spec 1 `currency_system`), set by the operator
  //    (`npx lintel currency set`); a rate holds from valid_from (µs) until the pair's next one
  `
  CREATE TABLE exchange_rates (
    base TEXT NOT NULL,
    quote TEXT NOT NULL,
    valid_from INTEGER NOT NULL,
    rate REAL NOT NULL CHECK (rate > 0),
    PRIMARY KEY (base, quote, valid_from)
  ) WITHOUT ROWID;
  `,
  // 7: documents (spec 1 "Documents and quotas"): the files of company and project spaces
  //    with their SHA-256 and storage key, and the quota each space was ordered with. A space
  //    is 'c<company id>' or 'p<project id>'; deleting the owner cascades to both tables.
  `
  CREATE TABLE file_quotas (
    space TEXT PRIMARY KEY,
    company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
    file_size_bytes INTEGER NOT NULL,
    files INTEGER NOT NULL,
    space_bytes INTEGER NOT NULL
  );
  CREATE TABLE files (
    id INTEGER PRIMARY KEY,
    space TEXT NOT NULL,
    company_id INTEGER NOT NULL REFERENCES companies(id) ON DELETE CASCADE,
    project_id INTEGER REFERENCES projects(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    object_key TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    last_modified INTEGER NOT NULL,
    UNIQUE (space, path)
  );
  CREATE INDEX files_project ON files(project_id) WHERE project_id IS NOT NULL;
  CREATE INDEX files_company ON files(company_id);
  `,
  // 8: dynamic, time-dependent tags of MQTT line protocol (spec 3, line format rule 4;
  //    catalog/series-tags.ts): one row per change of a tag's value of a series, holding from
  //    valid_from (µs) until the key's next row. project_id is kept for the per-project bound.
  //    Bounds (operator settings, like max_datapoints_per_project): rows per series and per project.
  `
  CREATE TABLE series_tags (
    datapoint INTEGER NOT NULL REFERENCES datapoints(id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    valid_from INTEGER NOT NULL,
    value TEXT NOT NULL,
    project_id INTEGER NOT NULL,
    PRIMARY KEY (datapoint, key, valid_from)
  ) WITHOUT ROWID;
  CREATE INDEX series_tags_project ON series_tags (project_id);
  INSERT INTO catalog_settings (key, value) VALUES ('max_tag_changes_per_series', 1000), ('max_tag_changes_per_project', 100000);
  `,
  // 9: alerts (issue 13): definitions keyed by project and datapoint (both cascade: deleting
  //    either removes its alerts), the evaluation checkpoint per alert (restart without a
  //    duplicate raise or a missed reset), the raise/reset events, and the durable outbox of
  //    notifications not yet delivered (bounded by the notifier).
  `
  CREATE TABLE alerts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    datapoint INTEGER NOT NULL REFERENCES datapoints(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('threshold', 'throughput')),
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    status_code INTEGER NOT NULL,
    config TEXT NOT NULL,
    notification TEXT NOT NULL,
    attributes TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX alerts_project ON alerts(project_id);
  CREATE INDEX alerts_datapoint ON alerts(datapoint);
  CREATE TABLE alert_state (
    alert_id INTEGER PRIMARY KEY REFERENCES alerts(id) ON DELETE CASCADE,
    state TEXT NOT NULL
  );
  CREATE TABLE alert_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    alert_id INTEGER NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('raise', 'reset')),
    level TEXT,
    previous_level TEXT,
    value REAL,
    time INTEGER NOT NULL,
    recorded_at INTEGER NOT NULL
  );
  CREATE INDEX alert_events_alert ON alert_events(alert_id, id);
  CREATE TABLE alert_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    alert_id INTEGER NOT NULL,
    channel TEXT NOT NULL,
    payload TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
  );
  `,
  // 10: setpoints (spec 2 "Datapoint write bounds", "Setpoint write operation"; issue 11):
  //    write bounds per datapoint, the per-project enabling with its most urgent allowed
  //    priority (operator tool; BACnet 1 = most urgent, default 8 = manual operator), and one
  //    row per setpoint request: the operation's state and JSON log, which is also the audit
  //    trail (who, when, value, priority, result). New tables only; removed with the project.
  `
  CREATE TABLE datapoint_write_bounds (
    datapoint INTEGER PRIMARY KEY REFERENCES datapoints(id) ON DELETE CASCADE,
    setpoint_min_value REAL NOT NULL,
    setpoint_max_value REAL NOT NULL,
    CHECK (setpoint_min_value <= setpoint_max_value)
  );
  CREATE TABLE project_setpoints (
    project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    enabled INTEGER NOT NULL DEFAULT 0,
    max_priority INTEGER NOT NULL DEFAULT 8 CHECK (max_priority BETWEEN 1 AND 16)
  );
  CREATE TABLE setpoint_operations (
    id INTEGER PRIMARY KEY,
    reference TEXT NOT NULL UNIQUE,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    datapoint_id TEXT NOT NULL,
    value REAL,
    priority INTEGER NOT NULL,
    acked INTEGER NOT NULL,
    dryrun INTEGER NOT NULL,
    keep_out_of_service INTEGER NOT NULL,
    requested_by TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    deadline INTEGER,
    status TEXT NOT NULL,
    old_value TEXT,
    log TEXT NOT NULL
  );
  CREATE INDEX setpoint_operations_dp ON setpoint_operations(project_id, datapoint_id, id);
  CREATE INDEX setpoint_operations_open ON setpoint_operations(id) WHERE status = 'initialized' OR (status = 'requested' AND deadline IS NOT NULL);
  `,
  // 11: component analytics (spec 3 "Analytics"; issue 12): mapped components of a project
  //    (the abstract component is the library's id, data/components), their pin → datapoint
  //    mappings (a deleted datapoint unmaps its pins) and attribute values; analysis
  //    instances, one per (function, mapped component); results with the texts of both
  //    languages; and the weekly ledger, one row per (instance, week) claimed before the run,
  //    so a week never runs twice. Everything goes with its project. New tables only.
  `
  CREATE TABLE components_in_project (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    component_id INTEGER NOT NULL,
    display_name TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL
  );
  CREATE INDEX components_in_project_project ON components_in_project(project_id, id);
  CREATE TABLE component_pin_datapoints (
    cip_id INTEGER NOT NULL REFERENCES components_in_project(id) ON DELETE CASCADE,
    pin_id INTEGER NOT NULL,
    datapoint INTEGER NOT NULL REFERENCES datapoints(id) ON DELETE CASCADE,
    PRIMARY KEY (cip_id, pin_id)
  );
  CREATE INDEX component_pin_datapoints_dp ON component_pin_datapoints(datapoint);
  CREATE TABLE component_attributes (
    cip_id INTEGER NOT NULL REFERENCES components_in_project(id) ON DELETE CASCADE,
    attribute_id INTEGER NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (cip_id, attribute_id)
  );
  CREATE TABLE analysis_instances (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    cip_id INTEGER NOT NULL REFERENCES components_in_project(id) ON DELETE CASCADE,
    function_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    weeks_from INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (function_id, cip_id)
  );
  CREATE INDEX analysis_instances_project ON analysis_instances(project_id, id);
  CREATE INDEX analysis_instances_cip ON analysis_instances(cip_id);
  CREATE TABLE analysis_results (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    result_id TEXT NOT NULL UNIQUE,
    instance_id INTEGER NOT NULL REFERENCES analysis_instances(id) ON DELETE CASCADE,
    start_us INTEGER NOT NULL,
    end_us INTEGER NOT NULL,
    status TEXT NOT NULL,
    trigger TEXT NOT NULL CHECK (trigger IN ('manual', 'weekly')),
    signal_color TEXT,
    texts TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX analysis_results_instance ON analysis_results(instance_id, id);
  CREATE TABLE analysis_weeks (
    instance_id INTEGER NOT NULL REFERENCES analysis_instances(id) ON DELETE CASCADE,
    week_start INTEGER NOT NULL,
    status_code INTEGER NOT NULL,
    claimed_by TEXT NOT NULL,
    claimed_at INTEGER NOT NULL,
    result_id TEXT,
    PRIMARY KEY (instance_id, week_start)
  );
  CREATE INDEX analysis_weeks_running ON analysis_weeks(status_code, claimed_at);
  `,
  // 12: issue 14 item 4: the project time zone (IANA name) of calendar buckets; validated by
  // the catalog (luxon), default UTC.
  `ALTER TABLE projects ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';`,
]
