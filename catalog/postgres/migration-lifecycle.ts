// PostgreSQL migration of the data lifecycle (issue 34 item 2; catalog/lifecycle.ts): the audit
// of data deletions and the retention of each project, as SQLite migration 17. Its own module so
// that migrations.ts stays under the file-size limit; one entry of its list.
export const LIFECYCLE_MIGRATION = `
  CREATE TABLE data_deletions (
    id BIGSERIAL PRIMARY KEY,
    project_id BIGINT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    datapoint_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('range', 'datapoint')),
    range_start BIGINT,
    range_end BIGINT,
    actor TEXT NOT NULL,
    at BIGINT NOT NULL
  );
  CREATE INDEX data_deletions_project ON data_deletions(project_id, id);
  CREATE TABLE project_retention (
    project_id BIGINT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    raw_s BIGINT,
    rollup_15m_s BIGINT,
    rollup_1h_s BIGINT,
    rollup_1d_s BIGINT
  );
  `
