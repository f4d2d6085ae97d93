-- Jobs get the server's own id, the REST API's "id": a sequence from 1 in the order the
-- ledger first recorded them, never reused. The forge's workflow job id stays in id, the
-- key the ledger is written by. SQLite cannot add such a column in place: the table is
-- rebuilt, numbering the jobs it has in creation order.
CREATE TABLE jobs_new (
	seq               INTEGER PRIMARY KEY AUTOINCREMENT,
	id                BIGINT NOT NULL UNIQUE,
	run_id            BIGINT NOT NULL DEFAULT 0,
	action            TEXT NOT NULL DEFAULT '',
	status            TEXT NOT NULL DEFAULT '',
	conclusion        TEXT NOT NULL DEFAULT '',
	name              TEXT NOT NULL DEFAULT '',
	started_at        TIMESTAMP,
	completed_at      TIMESTAMP,
	runner_id         BIGINT NOT NULL DEFAULT 0,
	runner_name       TEXT NOT NULL DEFAULT '',
	runner_group_id   BIGINT NOT NULL DEFAULT 0,
	runner_group_name TEXT NOT NULL DEFAULT '',
	repository_name   TEXT NOT NULL DEFAULT '',
	repository_owner  TEXT NOT NULL DEFAULT '',
	workflow_run_url  TEXT NOT NULL DEFAULT '',
	labels            TEXT,
	entity_id         TEXT NOT NULL DEFAULT '',
	entity_type       TEXT NOT NULL DEFAULT '',
	locked_by         TEXT NOT NULL DEFAULT '',
	reason            TEXT NOT NULL DEFAULT '',
	created_at        TIMESTAMP NOT NULL,
	updated_at        TIMESTAMP NOT NULL
);
INSERT INTO jobs_new (id, run_id, action, status, conclusion, name, started_at, completed_at, runner_id,
	runner_name, runner_group_id, runner_group_name, repository_name, repository_owner, workflow_run_url,
	labels, entity_id, entity_type, locked_by, reason, created_at, updated_at)
SELECT id, run_id, action, status, conclusion, name, started_at, completed_at, runner_id,
	runner_name, runner_group_id, runner_group_name, repository_name, repository_owner, workflow_run_url,
	labels, entity_id, entity_type, locked_by, reason, created_at, updated_at
FROM jobs ORDER BY created_at, id;
DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;
CREATE INDEX jobs_entity_action ON jobs (entity_id, action);
CREATE INDEX jobs_action ON jobs (action);
CREATE INDEX jobs_entity_updated ON jobs (entity_id, updated_at);
