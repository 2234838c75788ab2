// SQLite catalog migrations 5 onwards (catalog/sqlite/migrations.ts has the rules: append,
// never edit): MQTT reach, exchange rates, documents, series tags, alerts, setpoints,
// analytics, project time zones. A new migration is appended here.
import type { Migration } from './rebuild.ts'

export const MIGRATIONS_5_ON: readonly Migration[] = [
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
  // 13: issue 29 item 3: the MQTT accounts a project designates as its edge agents, the only
  // ones whose setpoint answers (SPTACK) count. Existing accounts are not edge agents.
  `ALTER TABLE mqtt_accounts ADD COLUMN edge INTEGER NOT NULL DEFAULT 0;`,
  // 14: issue 31: controls apps (an algorithm on a mapped component, deployed to the edge
  // agent by revision), their logs (edge entries once per (app, seq)) and the holiday calendar
  // of each project.
  `
  CREATE TABLE controls_apps (
    id TEXT PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    cip_id INTEGER NOT NULL REFERENCES components_in_project(id) ON DELETE CASCADE,
    algorithm TEXT NOT NULL,
    variation TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    configuration TEXT NOT NULL,
    pins TEXT NOT NULL,
    status_code INTEGER NOT NULL,
    status_reason TEXT NOT NULL,
    desired TEXT NOT NULL CHECK (desired IN ('run', 'stop', 'delete')),
    revision INTEGER NOT NULL,
    confirmed_revision INTEGER NOT NULL,
    deployed INTEGER NOT NULL,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX controls_apps_project ON controls_apps(project_id, created_at);
  CREATE INDEX controls_apps_pending ON controls_apps(updated_at) WHERE deployed = 1 AND revision > confirmed_revision;
  CREATE TABLE controls_app_logs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    app_id TEXT NOT NULL REFERENCES controls_apps(id) ON DELETE CASCADE,
    seq INTEGER,
    time_us INTEGER NOT NULL,
    kind TEXT NOT NULL,
    message TEXT NOT NULL,
    status_code INTEGER,
    datapoint TEXT,
    value REAL,
    priority INTEGER,
    UNIQUE (app_id, seq)
  );
  CREATE INDEX controls_app_logs_time ON controls_app_logs(app_id, time_us, id);
  CREATE TABLE project_holidays (
    project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    rules TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  );
  `,
  // 15: issue 34 item 3: people acknowledge and clear alerts. Events of the kinds ack and clear
  // with who and a comment (SQLite cannot widen a CHECK: the table is copied, its AUTOINCREMENT
  // position kept so event ids are never reused), and the acknowledgement of a current raise.
  `CREATE TABLE alert_events_v2 (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    alert_id INTEGER NOT NULL REFERENCES alerts(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('raise', 'reset', 'ack', 'clear')),
    level TEXT,
    previous_level TEXT,
    value REAL,
    time INTEGER NOT NULL,
    recorded_at INTEGER NOT NULL,
    actor TEXT,
    comment TEXT
  );
  INSERT INTO alert_events_v2 (id, alert_id, kind, level, previous_level, value, time, recorded_at)
    SELECT id, alert_id, kind, level, previous_level, value, time, recorded_at FROM alert_events;
  INSERT INTO sqlite_sequence (name, seq) SELECT 'alert_events_v2', seq FROM sqlite_sequence WHERE name = 'alert_events'
    AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'alert_events_v2');
  UPDATE sqlite_sequence SET seq = max(seq, (SELECT seq FROM sqlite_sequence WHERE name = 'alert_events')) WHERE name = 'alert_events_v2';
  DROP TABLE alert_events;
  ALTER TABLE alert_events_v2 RENAME TO alert_events;
  CREATE INDEX alert_events_alert ON alert_events(alert_id, id);
  CREATE TABLE alert_acks (
    alert_id INTEGER PRIMARY KEY REFERENCES alerts(id) ON DELETE CASCADE,
    event_id INTEGER NOT NULL,
    actor TEXT NOT NULL,
    comment TEXT,
    level TEXT,
    at INTEGER NOT NULL
  );`,
  // 16: issue 33: per-user favorites and plot views (spec 1 access rule 9), gone with their
  // user, project or datapoint.
  `
  CREATE TABLE favorites (
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    datapoint INTEGER NOT NULL REFERENCES datapoints(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (user_id, datapoint)
  );
  CREATE INDEX favorites_datapoint ON favorites(datapoint);
  CREATE TABLE plot_views (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    spec TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX plot_views_user ON plot_views(user_id, project_id, id);
  CREATE INDEX plot_views_project ON plot_views(project_id);
  `,
  // 17: issue 34 item 1: export jobs (state, progress, heartbeat), gone with their project.
  `
  CREATE TABLE export_jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL,
    format TEXT NOT NULL CHECK (format IN ('csv', 'parquet')),
    path TEXT NOT NULL,
    spec TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('running', 'done', 'failed')),
    rows_done INTEGER NOT NULL,
    rows_estimate INTEGER NOT NULL,
    bytes INTEGER,
    error TEXT,
    created_at INTEGER NOT NULL,
    heartbeat INTEGER NOT NULL,
    finished_at INTEGER
  );
  CREATE INDEX export_jobs_project ON export_jobs(project_id, id);
  CREATE INDEX export_jobs_running ON export_jobs(state, heartbeat);
  `,
  // 18: issue 34 item 2: the audit of data deletions (who removed which observations or
  // datapoint, when; kept after the datapoint is gone, so by identifier) and the retention of
  // each project per raw data and rollup level, in seconds (no row, or NULL: kept forever).
  `
  CREATE TABLE data_deletions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    datapoint_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('range', 'datapoint')),
    range_start INTEGER,
    range_end INTEGER,
    actor TEXT NOT NULL,
    at INTEGER NOT NULL
  );
  CREATE INDEX data_deletions_project ON data_deletions(project_id, id);
  CREATE TABLE project_retention (
    project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    raw_s INTEGER,
    rollup_15m_s INTEGER,
    rollup_1h_s INTEGER,
    rollup_1d_s INTEGER
  );
  `,
]
