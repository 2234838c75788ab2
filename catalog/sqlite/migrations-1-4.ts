// SQLite catalog migrations 1-4 (catalog/sqlite/migrations.ts has the rules: append, never
// edit): the organisation, MQTT, virtual datapoints, and ids that are never reused.
import { addAutoincrement, type Migration } from './rebuild.ts'

export const MIGRATIONS_1_TO_4: readonly Migration[] = [
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
]
